// Which entries are sampled (docs/FRESHNESS.md): decided by the key's hash alone, so every
// proxy of a fleet samples the same keys and their samples pool without double counting.

/// The sampling choice by key hash.
package enum FreshnessSelection {
    /// Whether `key` is among the `share` of keys sampled: its first 8 digest bytes, read as a
    /// fraction of 2^64, fall below `share`.
    @inline(__always)
    package static func isSampled(_ key: CacheKey, share: Double) -> Bool {
        if share >= 1 { return true }
        if share <= 0 { return false }
        return Double(key.prefix) < share * 18_446_744_073_709_551_616.0
    }
}
