// One operation name's row of the request statistics, as `GET /stats` lists it under `operations`.

/// Requests, cache results and latency for the requests of one `operationName`.
@dynamicMemberLookup
package struct OperationStatistics: Sendable, Equatable {
    /// Every request, with or without a cache decision.
    package var requests = 0
    /// Requests by cache result (read as `row.hits`, `row.misses`...).
    package var results = CacheResultCounts()
    /// Client-facing durations, from request received to response written.
    package var latency = LatencyHistogram()

    package init() {}

    package subscript(dynamicMember counter: KeyPath<CacheResultCounts, Int>) -> Int { results[keyPath: counter] }

    package var hitRatio: Double { results.hitRatio }

    /// Counts one request of this operation.
    package mutating func record(cache: RequestStatistics.CacheResult?, sample: LatencyHistogram.Sample) {
        requests += 1
        latency.record(sample)
        results.record(cache)
    }

    /// Adds `other`'s figures to these.
    package mutating func merge(_ other: Self) {
        requests += other.requests
        results.merge(other.results)
        latency.merge(other.latency)
    }
}
