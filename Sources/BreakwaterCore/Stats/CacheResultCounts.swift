// How many requests got each `X-Cache` answer, and the hit ratio over them (README "Watching it: the admin endpoints"): the part the
// whole-process figures and each operation's row have in common.

/// Counts of HIT, STALE, MISS and BYPASS answers.
package struct CacheResultCounts: Sendable, Equatable {
    package var hits = 0
    package var stale = 0
    package var misses = 0
    package var bypass = 0

    package init() {}

    /// (hits + stale) / (hits + stale + misses), or 0 before any of them; BYPASS is not counted
    /// (README "Watching it: the admin endpoints").
    package var hitRatio: Double {
        let decided = hits + stale + misses
        return decided == 0 ? 0 : Double(hits + stale) / Double(decided)
    }

    /// Adds one to the counter of `result` (none for nil: answered without a cache decision).
    package mutating func record(_ result: RequestStatistics.CacheResult?) {
        switch result {
        case .hit: hits += 1
        case .stale: stale += 1
        case .miss: misses += 1
        case .bypass: bypass += 1
        case nil: break
        }
    }

    package mutating func merge(_ other: Self) {
        hits += other.hits
        stale += other.stale
        misses += other.misses
        bypass += other.bypass
    }
}
