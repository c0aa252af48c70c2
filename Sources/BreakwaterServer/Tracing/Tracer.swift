// Tracing as the request path sees it when `tracing.otlp_endpoint` is set (docs/TRACING.md):
// each request's place in a trace, the clock spans are timed with, and the exporter that takes
// them. Without an endpoint there is no tracer, and no request does any of this.

import BreakwaterCore

/// Starts request traces and hands finished spans to the exporter; used from any loop.
final class Tracer: Sendable {
    let propagation: TracePropagation
    let exporter: TraceExporter
    /// The path requests are traced under (`server.graphql_path`), for the request span's name.
    let path: String

    init(_ configuration: Configuration, exporter: TraceExporter, ids: any TraceIDSource) {
        propagation = TracePropagation(
            sampler: TraceSampler(ratio: configuration.tracing.sampleRatio), ids: ids,
            readsClientContext: configuration.origin.forwardHeaders.contains { $0.equalsIgnoringASCIICase("traceparent") })
        self.exporter = exporter
        path = configuration.server.graphqlPath
    }

    var ids: any TraceIDSource { propagation.ids }

    /// The time spans record.
    var now: UInt64 { WallClockNanos.now }

    /// `request`'s trace, begun now. One that is not recorded only carries the trace to the
    /// origin: no time is read and nothing is noted for spans.
    func begin(_ request: HTTPRequest) -> TracedRequest {
        let (context, parent, isSampled) = propagation.begin(request.headers)
        guard isSampled else {
            return TracedRequest(
                context: context, parent: parent, isRecorded: false, start: 0, method: "", path: "",
                protocolVersion: request.version)
        }
        let trace = TracedRequest(
            context: context, parent: parent, isRecorded: true, start: now, method: request.method.token, path: path,
            protocolVersion: request.version)
        trace.requestID = request.identity?.requestID
        return trace
    }

    /// A trace of its own for work no request asked for (a CDN purge call): a new trace, recorded
    /// by `tracing.sample_ratio`; nil when it is not recorded.
    func beginRoot() -> SpanContext? {
        let (context, _, isSampled) = propagation.begin(HTTPHeaders())
        return isSampled ? context : nil
    }

    /// Hands finished spans to the exporter.
    func record(_ spans: [Span]) {
        exporter.submit(spans)
    }

    /// Hands one finished span to the exporter.
    func record(_ span: Span) {
        exporter.submit([span])
    }
}
