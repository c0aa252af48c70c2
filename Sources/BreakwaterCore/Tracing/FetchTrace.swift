// The trace of one origin fetch (docs/TRACING.md, "What is exported"): the request span it hangs
// under (the request that led the fetch), the origin fetch span's id, which the origin's
// `traceparent` names as its parent, and the spans of the fetch's steps: the L2 lookup, the fleet
// lease and the wait for another proxy's entry, the origin exchange.

/// Where a fetch sits in a trace, and its spans. An object: a plan holding it is copied on the
/// miss path (waiters, the run), and one reference is all a copy takes.
package final class FetchTrace: Sendable {
    /// The leading request's span context.
    package let parent: SpanContext
    /// The origin fetch span's id.
    package let originSpanID: SpanID
    /// Whether the fetch's spans are recorded (the trace is sampled and export is on); the
    /// origin's `traceparent` is sent either way.
    package let isRecorded: Bool

    package init(parent: SpanContext, originSpanID: SpanID, isRecorded: Bool) {
        self.parent = parent
        self.originSpanID = originSpanID
        self.isRecorded = isRecorded
    }

    /// The context the origin's `traceparent` and `tracestate` carry: the origin fetch span's.
    package var originContext: SpanContext { parent.child(originSpanID) }

    /// The L2 (Redis) lookup from `start` to `end`: `hit` or `miss` (a timeout or an absent tier reads as a miss).
    package func l2Lookup(start: UInt64, end: UInt64, hit: Bool, ids: any TraceIDSource) -> Span {
        step(
            TraceSpanNames.l2Lookup, start: start, end: end, ids: ids,
            [SpanAttribute(TraceAttributes.l2Result, hit ? "hit" : "miss")])
    }

    /// The request for the fleet-wide lease, and whether this proxy got it.
    package func lease(start: UInt64, end: UInt64, acquired: Bool, ids: any TraceIDSource) -> Span {
        step(
            TraceSpanNames.fleetLease, start: start, end: end, ids: ids,
            [SpanAttribute(TraceAttributes.leaseAcquired, acquired)])
    }

    /// The wait for the entry of the proxy holding the lease, and whether it came in time.
    package func fleetWait(start: UInt64, end: UInt64, arrived: Bool, ids: any TraceIDSource) -> Span {
        step(
            TraceSpanNames.fleetWait, start: start, end: end, ids: ids,
            [SpanAttribute(TraceAttributes.leaseEntryArrived, arrived)])
    }

    /// The exchange with the origin (kind client) from sending to its answer or failure:
    /// `status` when it answered, `failure` when it did not; on a `reused` keep-alive connection
    /// or a new one; `attempt` 2 when it was sent again after a reused connection closed.
    package func originFetch(
        start: UInt64, end: UInt64, method: String, host: String, port: Int, status: Int?, failure: String?,
        reused: Bool?, attempt: Int
    ) -> Span {
        var attributes = [
            SpanAttribute(TraceAttributes.httpMethod, method),
            SpanAttribute(TraceAttributes.serverAddress, host),
            SpanAttribute(TraceAttributes.serverPort, port),
            SpanAttribute(TraceAttributes.attempt, attempt),
        ]
        if let status { attributes.append(SpanAttribute(TraceAttributes.httpStatus, status)) }
        if let reused { attributes.append(SpanAttribute(TraceAttributes.connectionReused, reused)) }
        let error = failure ?? status.flatMap { $0 >= 500 ? "the origin answered \($0)" : nil }
        return Span(
            name: TraceSpanNames.originFetch, kind: .client, context: originContext, parent: parent.spanID,
            start: start, end: end, attributes: attributes, error: error)
    }

    private func step(
        _ name: String, start: UInt64, end: UInt64, ids: any TraceIDSource, _ attributes: [SpanAttribute]
    ) -> Span {
        Span(
            name: name, kind: .internal, context: parent.child(ids.nextSpanID()), parent: parent.spanID, start: start,
            end: end, attributes: attributes)
    }
}
