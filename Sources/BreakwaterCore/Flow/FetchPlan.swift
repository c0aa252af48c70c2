// What one origin fetch is for: the operation, the request to send, and where its answer may go.

/// One fetch from the origin, for a miss (shared by every waiter of its key), a background
/// refresh, or a single uncacheable request.
package struct FetchPlan: Sendable {
    /// The cache key; nil when the answer must not touch the cache (`bypass` says why).
    package var key: CacheKey?
    package var bypass: BypassReason?
    package var operation: PreparedOperation
    /// The entry belongs to one user (scope per-user): never shared with a CDN.
    package var isPerUser: Bool
    /// Header fields for the origin, made from the (leading) client's request, as written.
    package var upstreamHeaders: UpstreamHeaderBlock
    /// Fetched for its own client alone because the key's answers may not be shared
    /// (hit-for-miss): no fleet-wide lease, and its answer goes to that client only.
    package var isHitForMiss = false
    /// The fetch's place in the leading request's trace, when tracing export is on: the origin's
    /// `traceparent` (in `upstreamHeaders`) names its origin fetch span.
    package var trace: FetchTrace?

    package init(
        key: CacheKey?, bypass: BypassReason?, operation: PreparedOperation, isPerUser: Bool,
        upstreamHeaders: UpstreamHeaderBlock, isHitForMiss: Bool = false, trace: FetchTrace? = nil
    ) {
        self.key = key
        self.bypass = bypass
        self.operation = operation
        self.isPerUser = isPerUser
        self.upstreamHeaders = upstreamHeaders
        self.isHitForMiss = isHitForMiss
        self.trace = trace
    }

    /// The memory this plan holds while it is kept for later (a freshness sample's), in bytes:
    /// the upstream request's target, body and header bytes, the parsed variables counted as large as
    /// the body, and 512 for the objects around them.
    package var heldBytes: Int {
        let origin = operation.origin
        return 512 + origin.target.utf8.count + 2 * origin.body.count + upstreamHeaders.count
    }

    /// This plan, fetched for its own client alone.
    package var alone: FetchPlan {
        var plan = self
        plan.isHitForMiss = true
        return plan
    }
}
