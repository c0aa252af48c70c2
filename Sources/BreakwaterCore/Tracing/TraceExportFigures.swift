// The span exporter's counts (docs/TRACING.md, "Watching the export"), kept by the export queue.

/// What the span exporter did, for `/stats` and `/metrics` (`breakwater_trace_*`).
package struct TraceExportFigures: Sendable, Equatable {
    /// Spans waiting now.
    package var queued = 0
    /// Spans the collector accepted.
    package var exported = 0
    /// Spans dropped because the queue was full.
    package var droppedQueueFull = 0
    /// Spans of exports that failed (refused, timed out, answered non-2xx).
    package var droppedExportFailed = 0
    /// Spans still waiting when the process stopped.
    package var droppedAtStop = 0
    /// Export requests sent, and those that failed.
    package var exports = 0
    package var failedExports = 0

    package init() {}

    /// Every dropped span, whatever the reason.
    package var dropped: Int { droppedQueueFull + droppedExportFailed + droppedAtStop }
}
