// The cache outcome of one answer (README "The response cache"), decided by the flow and carried to the reply as a
// value: written into the `X-Cache` header, counted and logged without parsing the header back.

/// How an answer relates to the cache.
package enum XCache: String, Sendable, CaseIterable {
    /// Fresh from the cache.
    case hit = "HIT"
    /// From the cache past its TTL (stale-while-revalidate, stale-if-error, soft purge).
    case stale = "STALE"
    /// Fetched from the origin and stored (also for clients that waited on that fetch).
    case miss = "MISS"
    /// Fetched and not stored, whatever the reason (`BypassReason`).
    case bypass = "BYPASS"

    /// The `X-Cache` header value.
    package var headerValue: String { rawValue }

    /// `headerValue` as a literal, for the engines that write its bytes.
    package var headerLiteral: StaticString {
        switch self {
        case .hit: "HIT"
        case .stale: "STALE"
        case .miss: "MISS"
        case .bypass: "BYPASS"
        }
    }
}

extension RequestStatistics.CacheResult {
    package init(_ cache: XCache) {
        switch cache {
        case .hit: self = .hit
        case .stale: self = .stale
        case .miss: self = .miss
        case .bypass: self = .bypass
        }
    }
}
