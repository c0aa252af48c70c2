// What the demo origin has received, for tests that assert how often the proxy reached it.

import BreakwaterCore
import GraphQL

/// Counts of GraphQL requests received, and the last one's query and headers.
struct DemoCounters: Sendable, Equatable {
    var requests = 0
    /// Per `operationName`, or "(anonymous)" for operations without a name.
    var byOperation: [String: Int] = [:]
    /// Per method; GET and POST are always listed so tests can read zeros.
    var byMethod: [String: Int] = ["GET": 0, "POST": 0]
    var lastQuery: String?
    /// Lower-case names; repeated fields joined with ", " as HTTP allows.
    var lastHeaders: [String: String] = [:]

    /// Requests marked as freshness sampling fetches (`Breakwater-Sample: freshness`), and the
    /// most of them that arrived within one second of the monotonic clock. They are counted here
    /// only, so that the other counters show the clients' demand (what tests and demos count).
    var samplingFetches = 0
    var samplingPeakPerSecond = 0
    /// The arrival times of the sampling fetches of the last second.
    private var recentSamplingFetches: [ContinuousClock.Instant] = []

    static let anonymous = "(anonymous)"

    mutating func record(
        method: String, operationName: String?, query: String?, headers: HTTPHeaders,
        now: ContinuousClock.Instant = .now
    ) {
        if headers["Breakwater-Sample"] != nil {
            samplingFetches += 1
            recentSamplingFetches.removeAll { now - $0 >= .seconds(1) }
            recentSamplingFetches.append(now)
            samplingPeakPerSecond = max(samplingPeakPerSecond, recentSamplingFetches.count)
            return
        }
        requests += 1
        byOperation[operationName ?? Self.anonymous, default: 0] += 1
        byMethod[method, default: 0] += 1
        lastQuery = query
        var seen: [String: String] = [:]
        for field in headers {
            let key = field.name.lowercased()
            seen[key] = seen[key].map { "\($0), \(field.value)" } ?? field.value
        }
        lastHeaders = seen
    }

    /// The `GET /_demo/counters` body; keys sorted so the bytes never depend on hashing.
    var map: Map {
        [
            "requests": .int(requests),
            "byOperation": Self.sortedMap(byOperation.mapValues(Map.int)),
            "byMethod": Self.sortedMap(byMethod.mapValues(Map.int)),
            "lastQuery": lastQuery.map(Map.string) ?? .null,
            "lastHeaders": Self.sortedMap(lastHeaders.mapValues(Map.string)),
            "samplingFetches": .int(samplingFetches),
            "samplingPeakPerSecond": .int(samplingPeakPerSecond),
        ]
    }

    private static func sortedMap(_ dictionary: [String: Map]) -> Map {
        .dictionary(.init(uniqueKeysWithValues: dictionary.sorted { $0.key < $1.key }))
    }
}
