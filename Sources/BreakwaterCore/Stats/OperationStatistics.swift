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
    /// Client-facing durations by `cache`, for `breakwater_request_duration_seconds`.
    package var requestDurations = CacheDurationBuckets()
    /// Origin fetch durations by how the fetch ended (`cache`), for
    /// `breakwater_upstream_duration_seconds`.
    package var upstreamDurations = CacheDurationBuckets()

    package init() {}

    package subscript(dynamicMember counter: KeyPath<CacheResultCounts, Int>) -> Int { results[keyPath: counter] }

    package var hitRatio: Double { results.hitRatio }

    /// Counts one request of this operation.
    package mutating func record(cache: RequestStatistics.CacheResult?, sample: LatencyHistogram.Sample) {
        requests += 1
        latency.record(sample)
        requestDurations.record(sample, cache: cache)
        results.record(cache)
    }

    /// Adds `other`'s figures to these.
    package mutating func merge(_ other: Self) {
        requests += other.requests
        results.merge(other.results)
        latency.merge(other.latency)
        requestDurations.merge(other.requestDurations)
        upstreamDurations.merge(other.upstreamDurations)
    }
}
