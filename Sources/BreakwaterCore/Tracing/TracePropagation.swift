// Where a request's trace comes from (docs/TRACING.md, "Trace context"): the client's
// `traceparent` and `tracestate` when `origin.forward_headers` lists `traceparent` and the value
// is valid, else a new trace; and whether it is recorded (`TraceSampler`).

/// Decides each request's place in a trace.
package struct TracePropagation: Sendable {
    package let sampler: TraceSampler
    package let ids: any TraceIDSource
    /// `origin.forward_headers` lists `traceparent`: a client's trace is continued. Without it the
    /// client's trace context is neither read nor passed on, and each request starts a trace.
    package let readsClientContext: Bool

    package init(sampler: TraceSampler, ids: any TraceIDSource, readsClientContext: Bool) {
        self.sampler = sampler
        self.ids = ids
        self.readsClientContext = readsClientContext
    }

    /// A request's trace: its own span's context (a new span id, in the client's trace or a new
    /// one), the client's span when there is one, and whether the trace is recorded.
    package func begin(_ headers: HTTPHeaders) -> (context: SpanContext, parent: SpanID?, isSampled: Bool) {
        if readsClientContext, let client = Self.clientContext(headers) {
            return (client.child(ids.nextSpanID()), client.spanID, sampler.isSampled(parent: client))
        }
        let traceID = ids.nextTraceID()
        let isSampled = sampler.isSampled(newTrace: traceID)
        let context = SpanContext(
            traceID: traceID, spanID: ids.nextSpanID(), flags: isSampled ? TraceParent.sampledFlag : 0)
        return (context, nil, isSampled)
    }

    /// The client's trace context: exactly one valid `traceparent` field, with its `tracestate`
    /// fields joined by commas (RFC 9110 5.3); nil when there is no valid one (two `traceparent`
    /// fields are none: which one would be the parent?). An invalid `traceparent` takes its
    /// `tracestate` with it, as W3C Trace Context asks (section 3.3).
    package static func clientContext(_ headers: HTTPHeaders) -> SpanContext? {
        var parent: SpanContext?
        var parents = 0
        var states: [String] = []
        for field in headers.fields {
            switch field.name.utf8.count {
            case 11 where field.name.equalsIgnoringASCIICase("traceparent"):
                parents += 1
                parent = TraceParent.parse(field.value)
            case 10 where field.name.equalsIgnoringASCIICase("tracestate"):
                if !field.value.isEmpty { states.append(field.value) }
            default:
                break
            }
        }
        guard parents == 1, var parent else { return nil }
        if !states.isEmpty { parent.state = states.joined(separator: ",") }
        return parent
    }
}
