// One client request's trace as it goes (docs/TRACING.md, "What is exported"): where it sits in
// the trace, what the flow decided and when, and, once answered, the request span, the cache
// decision span and the wait on a coalesced fetch, built from those facts.

/// The facts of one request with a trace, and its spans. An object: the flow, the handler and
/// the responder that ends the request span share it; written on the request's loop before the
/// answer is handed over, read once by whoever hands it (the in-flight table's locks order them).
package final class TracedRequest: @unchecked Sendable {
    /// The request span's own context: its children name `context.spanID` as their parent, and
    /// the origin's `traceparent` is a child of it.
    package let context: SpanContext
    /// The client's span (its `traceparent`), nil when Breakwater started the trace.
    package let parent: SpanID?
    /// Whether the spans are recorded (the trace is sampled); the origin's `traceparent` is
    /// sent either way.
    package let isRecorded: Bool
    /// When the request was handed to the proxy (Unix nanoseconds).
    package let start: UInt64
    package var method: String
    /// The path served (`server.graphql_path`).
    package var path: String
    package var protocolVersion: HTTPVersion
    package var operationName: String?
    package var operationKind: OperationKind?
    package var documentHash: SHA256Digest?
    package var requestID: String?
    /// The cache key the flow looked up, when it made one.
    package var cacheKey: CacheKey?
    /// When the flow's decision (check, parse, resolve, key, lookup) ended.
    package var decided: UInt64?
    /// Why the answer was not stored or served from the cache, once known.
    package var bypassReason: BypassReason?
    /// When the request began to wait on another request's fetch (it joined a coalesced miss).
    package var waitStarted: UInt64?

    package init(
        context: SpanContext, parent: SpanID?, isRecorded: Bool = true, start: UInt64, method: String, path: String,
        protocolVersion: HTTPVersion
    ) {
        self.context = context
        self.parent = parent
        self.isRecorded = isRecorded
        self.start = start
        self.method = method
        self.path = path
        self.protocolVersion = protocolVersion
    }

    /// A fetch planned for this request: a child of its span, named by a new id from `ids`.
    package func fetch(ids: any TraceIDSource) -> FetchTrace {
        FetchTrace(parent: context, originSpanID: ids.nextSpanID(), isRecorded: isRecorded)
    }

    /// The spans of the request answered `status` with `cache` (`X-Cache`; nil for answers that
    /// are no GraphQL answers, such as preflights) at `end`: the request span (kind server), its
    /// cache decision when the flow got that far, and the wait when it waited on a coalesced fetch.
    /// `ids` names the children.
    package func spans(status: Int, cache: XCache?, end: UInt64, ids: any TraceIDSource) -> [Span] {
        var attributes = [
            SpanAttribute(TraceAttributes.httpMethod, method),
            SpanAttribute(TraceAttributes.urlPath, path),
            SpanAttribute(TraceAttributes.protocolVersion, protocolVersion == .http2 ? "2" : "1.1"),
            SpanAttribute(TraceAttributes.httpStatus, status),
        ]
        if let operationName { attributes.append(SpanAttribute(TraceAttributes.operationName, operationName)) }
        if let operationKind { attributes.append(SpanAttribute(TraceAttributes.operationType, operationKind.rawValue)) }
        if let documentHash { attributes.append(SpanAttribute(TraceAttributes.documentHash, documentHash.hex)) }
        if let cache { attributes.append(SpanAttribute(TraceAttributes.cache, cache.headerValue)) }
        if let requestID { attributes.append(SpanAttribute(TraceAttributes.requestID, requestID)) }
        // Only the server's own failures are errors of the request span (OTel's rule for server
        // spans): a 4xx is the client's.
        let failed = status >= 500 ? "answered \(status)" : nil
        var spans = [
            Span(
                name: "\(method) \(path)", kind: .server, context: context, parent: parent, start: start, end: end,
                attributes: attributes, error: failed)
        ]
        if let decided, let cache {
            var decision = [SpanAttribute(TraceAttributes.cacheResult, cache.headerValue)]
            if let cacheKey { decision.append(SpanAttribute(TraceAttributes.cacheKey, cacheKey.digest.hex)) }
            if let bypassReason { decision.append(SpanAttribute(TraceAttributes.bypassReason, bypassReason.rawValue)) }
            spans.append(child(TraceSpanNames.cacheDecision, start: start, end: decided, decision, ids: ids))
        }
        if let waitStarted {
            spans.append(child(TraceSpanNames.coalescedWait, start: waitStarted, end: end, [], ids: ids))
        }
        return spans
    }

    /// A span of this request's (kind internal), named by a new id from `ids`.
    private func child(
        _ name: String, start: UInt64, end: UInt64, _ attributes: [SpanAttribute], ids: any TraceIDSource
    ) -> Span {
        Span(
            name: name, kind: .internal, context: context.child(ids.nextSpanID()), parent: context.spanID, start: start,
            end: end, attributes: attributes)
    }
}
