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
    /// Headers for the origin, made from the (leading) client's request.
    package var upstreamHeaders: HTTPHeaders
}
