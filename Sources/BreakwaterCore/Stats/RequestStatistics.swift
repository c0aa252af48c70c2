// What one event loop has served, as plain values: each loop keeps one `RequestStatistics` behind
// a mutex that is almost never contended (only a coalesced fetch finishing on another loop writes
// to it from there). The admin endpoint takes a copy of every loop's and merges them
// (docs/OPERATING.md, "Metrics").

/// Request, cache, upstream and APQ counters with latency histograms, summed on read.
@dynamicMemberLookup
package struct RequestStatistics: Sendable, Equatable {
    /// The `X-Cache` answer a request got (README, "The response cache").
    package enum CacheResult: String, Sendable {
        case hit, stale, miss, bypass
    }

    /// How an upstream request ended.
    package enum UpstreamOutcome: Sendable {
        /// The origin answered, whatever the status.
        case answered
        /// The connection or the exchange failed before an answer.
        case failed
        /// No answer within `origin.timeout`.
        case timedOut
    }

    /// A persisted-query request that could not be served.
    package enum APQEvent: Sendable {
        /// A hash-only request for a hash the registry does not hold.
        case notFound
        /// A registration whose query does not hash to the given hash.
        case hashMismatch
    }

    /// At most this many rows in `operations`, `(other)` included, so that clients inventing
    /// operation names cannot grow the statistics without bound.
    package static let maxOperationNames = 500
    /// The row for names that arrive once `operations` is full.
    package static let otherOperationName = "(other)"
    /// The row for requests without an `operationName`.
    package static let anonymousOperationName = "(anonymous)"

    /// Every client request answered, with or without a cache decision.
    package var requests = 0
    /// Of `requests`, those that arrived over HTTP/2 (the rest over HTTP/1.1).
    package var http2Requests = 0
    /// Requests by cache result (read as `stats.hits`, `stats.misses`...).
    package var results = CacheResultCounts()
    /// Requests sent to the origin, whatever their outcome.
    package var upstreamRequests = 0
    /// Upstream requests that failed; timeouts are counted in `upstreamTimeouts` instead.
    package var upstreamErrors = 0
    /// Failed upstream requests (timeouts and 5xx included) by `UpstreamErrorReason`, in its order.
    package var upstreamErrorReasons = Array(repeating: 0, count: UpstreamErrorReason.allCases.count)
    /// `BYPASS` answers by `BypassReason`, in its order.
    package var bypassReasons = Array(repeating: 0, count: BypassReason.allCases.count)
    package var upstreamTimeouts = 0
    package var apqNotFound = 0
    package var apqHashMismatch = 0
    /// Client-facing durations of every request.
    package var requestDurations = LatencyHistogram()
    /// Durations of every upstream request, failed and timed-out ones included.
    package var upstreamDurations = LatencyHistogram()
    /// Per operation name, bounded by `maxOperationNames`.
    package private(set) var operations: [String: OperationStatistics] = [:]
    /// Where the last counted name's row is: a loop's requests mostly repeat one operation.
    private var lastRow = LastRow()
    /// Answers by status, error code and Apollo client.
    package var responses = ResponseCounters()

    package init() {}

    package subscript(dynamicMember counter: KeyPath<CacheResultCounts, Int>) -> Int { results[keyPath: counter] }

    package var hitRatio: Double { results.hitRatio }

    /// Counts one client request; `cache` is nil for answers that are not GraphQL answers (a CORS
    /// preflight, a request the HTTP engine refused unread), which count in `requests` only.
    package mutating func recordRequest(
        operationName: String?, cache: CacheResult?, bypassReason: BypassReason? = nil, duration: Duration,
        version: HTTPVersion = .http1
    ) {
        recordRequest(
            operationName: operationName, cache: cache, bypassReason: bypassReason,
            sample: LatencyHistogram.Sample(duration), version: version)
    }

    /// `recordRequest` with the duration in nanoseconds, as the proxy times its requests.
    package mutating func recordRequest(
        operationName: String?, cache: CacheResult?, bypassReason: BypassReason? = nil, nanoseconds: Int64,
        version: HTTPVersion = .http1
    ) {
        recordRequest(
            operationName: operationName, cache: cache, bypassReason: bypassReason,
            sample: LatencyHistogram.Sample(nanoseconds: nanoseconds), version: version)
    }

    private mutating func recordRequest(
        operationName: String?, cache: CacheResult?, bypassReason: BypassReason?, sample: LatencyHistogram.Sample,
        version: HTTPVersion
    ) {
        requests += 1
        if version == .http2 { http2Requests += 1 }
        requestDurations.record(sample)
        results.record(cache)
        if let bypassReason, let index = BypassReason.ordered.firstIndex(of: bypassReason) { bypassReasons[index] += 1 }
        let name = operationName ?? Self.anonymousOperationName
        // One lookup of the name for a known row (the steady state), not one per access.
        if let index = rowIndex(of: name) {
            operations.values[index].record(cache: cache, sample: sample)
        } else {
            lastRow = LastRow()
            operations[rowName(for: name), default: OperationStatistics()].record(cache: cache, sample: sample)
        }
    }

    /// Counts the status, the error code Breakwater answered with, and the Apollo client of one answer.
    package mutating func recordResponse(status: Int, errorCode: String?, clientName: String?, clientVersion: String?) {
        responses.record(status: status, errorCode: errorCode, clientName: clientName, clientVersion: clientVersion)
    }

    /// Counts one upstream request and how it ended: `reason` when it failed (a 5xx included),
    /// `cache` how the fetch ended for the cache, under `operationName`'s row.
    package mutating func recordUpstream(
        duration: Duration, outcome: UpstreamOutcome, reason: UpstreamErrorReason? = nil, operationName: String? = nil,
        cache: CacheResult? = nil
    ) {
        upstreamRequests += 1
        let sample = LatencyHistogram.Sample(duration)
        upstreamDurations.record(sample)
        switch outcome {
        case .answered: break
        case .failed: upstreamErrors += 1
        case .timedOut: upstreamTimeouts += 1
        }
        let reason = reason ?? (outcome == .timedOut ? .timeout : nil)
        if let reason, let index = UpstreamErrorReason.ordered.firstIndex(of: reason) {
            upstreamErrorReasons[index] += 1
        }
        let name = operationName ?? Self.anonymousOperationName
        if let index = rowIndex(of: name) {
            operations.values[index].upstreamDurations.record(sample, cache: cache)
        } else {
            lastRow = LastRow()
            operations[rowName(for: name), default: OperationStatistics()].upstreamDurations
                .record(sample, cache: cache)
        }
    }

    /// Counts one persisted-query request that could not be served.
    package mutating func recordAPQ(_ event: APQEvent) {
        switch event {
        case .notFound: apqNotFound += 1
        case .hashMismatch: apqHashMismatch += 1
        }
    }

    /// Adds `other`'s figures to these, keeping `operations` within its bound.
    ///
    /// When the merged rows would not fit, `other`'s busiest names take the free rows and the
    /// rest go to `(other)`, so the names a reader cares about stay visible and the result does
    /// not depend on dictionary order.
    package mutating func merge(_ other: Self) {
        requests += other.requests
        http2Requests += other.http2Requests
        results.merge(other.results)
        upstreamRequests += other.upstreamRequests
        upstreamErrors += other.upstreamErrors
        upstreamTimeouts += other.upstreamTimeouts
        for index in upstreamErrorReasons.indices { upstreamErrorReasons[index] += other.upstreamErrorReasons[index] }
        for index in bypassReasons.indices { bypassReasons[index] += other.bypassReasons[index] }
        apqNotFound += other.apqNotFound
        apqHashMismatch += other.apqHashMismatch
        requestDurations.merge(other.requestDurations)
        upstreamDurations.merge(other.upstreamDurations)
        responses.merge(other.responses)
        let busiestFirst = other.operations.sorted {
            ($0.value.requests, $1.key) > ($1.value.requests, $0.key)
        }
        lastRow = LastRow()
        for (name, row) in busiestFirst {
            operations[rowName(for: name), default: OperationStatistics()].merge(row)
        }
    }

    /// The index of `name`'s row, if it has one. The last name found is asked first: it usually
    /// arrives as the very same string (the loop's memo holds it), which `==` settles without
    /// reading its bytes, where the dictionary hashed it and compared it with its own copy of
    /// the name (some 450 instructions a request).
    private mutating func rowIndex(of name: String) -> Dictionary<String, OperationStatistics>.Index? {
        if let index = lastRow.index, lastRow.rowCount == operations.count, lastRow.name == name { return index }
        guard let index = operations.index(forKey: name) else { return nil }
        lastRow = LastRow(name: name, index: index, rowCount: operations.count)
        return index
    }

    /// A row found by name, kept for the next lookup. Its index stays valid while no row is
    /// added (rows are never removed), so every insertion into `operations` forgets it first.
    /// A lookup aid, not a figure: every two compare equal.
    private struct LastRow: Sendable, Equatable {
        var name: String?
        var index: Dictionary<String, OperationStatistics>.Index?
        var rowCount = 0

        static func == (_: Self, _: Self) -> Bool { true }
    }

    /// `name` when it has a row or there is room for one, else `(other)`; the last free row is
    /// kept for `(other)`.
    private func rowName(for name: String) -> String {
        if operations.index(forKey: name) != nil || operations.count < Self.maxOperationNames - 1 {
            return name
        }
        return Self.otherOperationName
    }
}
