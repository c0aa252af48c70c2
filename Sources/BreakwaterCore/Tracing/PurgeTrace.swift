// The span of one purge call to a cache in front (docs/CDN.md, docs/TRACING.md): a trace of its
// own, since a call carries the purges of many requests merged by the batch window.

/// Builds the span of one CDN purge call.
package enum PurgeTrace {
    /// A root span (kind client) for the call of `method` to `target` carrying `purges` purges,
    /// from `start` to `end`: answered `status`, or failed with `failure`; `attempt` counts from 1.
    package static func span(
        context: SpanContext, target: String, method: String, url: OriginURL, purges: Int, attempt: Int,
        status: Int?, failure: String?, start: UInt64, end: UInt64
    ) -> Span {
        var attributes = [
            SpanAttribute(TraceAttributes.cdnTarget, target),
            SpanAttribute(TraceAttributes.cdnPurges, purges),
            SpanAttribute(TraceAttributes.httpMethod, method),
            SpanAttribute(TraceAttributes.serverAddress, url.host),
            SpanAttribute(TraceAttributes.serverPort, url.port),
            SpanAttribute(TraceAttributes.attempt, attempt),
        ]
        if let status { attributes.append(SpanAttribute(TraceAttributes.httpStatus, status)) }
        let error = failure ?? status.flatMap { (200..<300).contains($0) ? nil : "the target answered \($0)" }
        return Span(
            name: TraceSpanNames.cdnPurge, kind: .client, context: context, parent: nil, start: start, end: end,
            attributes: attributes, error: error)
    }
}
