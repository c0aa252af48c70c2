// The response store's figures, as `GET /stats` reports them under `cache` (README "Watching it: the admin endpoints").

/// Counts and sizes of the response store, summed over its shards.
package struct StoreStatistics: Sendable, Equatable {
    /// Entries held now.
    package var entries = 0
    /// Total cost of the entries held now (bodies plus overhead), never above `maxBytes`.
    package var bytes = 0
    /// The configured bound, `cache.max_bytes`.
    package var maxBytes = 0
    /// Entries removed to make room for others since start.
    package var evictions = 0
    /// Entries whose TTL ran out (README "Watching it: the admin endpoints"): replaced by a refetch, or removed past every
    /// serving window on lookup or by the eviction hand. Each entry is counted once, when it goes.
    package var expired = 0
    /// Entries not stored because their cost alone exceeded a shard's budget.
    package var rejected = 0

    package init() {}
}
