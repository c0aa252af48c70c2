// One operation name's row of the request statistics, as `GET /stats` lists it under `operations`.

/// Requests, cache results and latency for the requests of one `operationName`.
package struct OperationStatistics: Sendable, Equatable {
    /// Every request, with or without a cache decision.
    package var requests = 0
    package var hits = 0
    package var misses = 0
    package var stale = 0
    package var bypass = 0
    /// Client-facing durations, from request received to response written.
    package var latency = LatencyHistogram()

    package init() {}

    /// (hits + stale) / (hits + stale + misses), or 0 before any of them (SPEC section 6).
    package var hitRatio: Double {
        RequestStatistics.hitRatio(hits: hits, stale: stale, misses: misses)
    }

    /// Counts one request of this operation.
    package mutating func record(cache: RequestStatistics.CacheResult?, duration: Duration) {
        requests += 1
        latency.record(duration)
        RequestStatistics.tally(cache, hits: &hits, stale: &stale, misses: &misses, bypass: &bypass)
    }

    /// Adds `other`'s figures to these.
    package mutating func merge(_ other: Self) {
        requests += other.requests
        hits += other.hits
        misses += other.misses
        stale += other.stale
        bypass += other.bypass
        latency.merge(other.latency)
    }
}
