// The span exporter's figures (docs/TRACING.md, "Watching the export"): `/stats` `tracing` and
// `/metrics` `breakwater_trace_*`, present when `tracing.otlp_endpoint` is set, each series from
// the start at 0.

extension StatsReport {
    /// The reasons `breakwater_trace_spans_dropped_total` counts dropped spans under.
    package static let traceDropReasons = ["queue_full", "export_failed", "stopped"]
}

extension TraceExportFigures {
    /// The dropped spans by `StatsReport.traceDropReasons`, in that order.
    var droppedByReason: [Int] { [droppedQueueFull, droppedExportFailed, droppedAtStop] }
}

extension CompactJSON {
    /// `"tracing": {queued, exported, dropped: {queue_full, export_failed, stopped}, exports, failed_exports}`.
    mutating func tracing(_ figures: TraceExportFigures) {
        openObject("tracing")
        integer("queued", figures.queued)
        integer("exported", figures.exported)
        openObject("dropped")
        for (reason, count) in zip(StatsReport.traceDropReasons, figures.droppedByReason) { integer(reason, count) }
        closeObject()
        integer("exports", figures.exports)
        integer("failed_exports", figures.failedExports)
        closeObject()
    }
}

extension Exposition {
    /// `breakwater_trace_spans_exported_total`, `breakwater_trace_spans_dropped_total{reason}`,
    /// `breakwater_trace_spans_queued`, `breakwater_trace_exports_total{result}`.
    mutating func tracing(_ figures: TraceExportFigures) {
        family("breakwater_trace_spans_exported_total", .counter, "Spans the OTLP collector accepted.")
        sample("breakwater_trace_spans_exported_total", figures.exported)
        family(
            "breakwater_trace_spans_dropped_total", .counter,
            "Spans never exported: the queue was full, their export failed, or the process stopped first.")
        for (reason, count) in zip(StatsReport.traceDropReasons, figures.droppedByReason) {
            sample("breakwater_trace_spans_dropped_total", labels: [("reason", reason)], count)
        }
        family("breakwater_trace_spans_queued", .gauge, "Spans waiting for export.")
        sample("breakwater_trace_spans_queued", figures.queued)
        family("breakwater_trace_exports_total", .counter, "OTLP export requests by result.")
        sample("breakwater_trace_exports_total", labels: [("result", "sent")], figures.exports - figures.failedExports)
        sample("breakwater_trace_exports_total", labels: [("result", "failed")], figures.failedExports)
    }
}
