// `cache.freshness` (docs/FRESHNESS.md): how many entries are sampled, how hard the origin may
// be asked, and the share of fresh hits the suggested TTLs aim for.

/// The settings of freshness sampling; `share` 0 turns it off.
public struct FreshnessSettings: Sendable, Equatable {
    /// Share of public entries whose freshness is sampled, 0...1 (chosen by key hash).
    public var share = 0.02
    /// Bound on sampling fetches the origin sees from this proxy, per second.
    public var maxFetchesPerSecond = 5.0
    /// Share of hits that should be fresh, for the suggested TTLs (0 < target < 1).
    public var target = 0.99

    public init(share: Double = 0.02, maxFetchesPerSecond: Double = 5, target: Double = 0.99) {
        self.share = share
        self.maxFetchesPerSecond = maxFetchesPerSecond
        self.target = target
    }

    /// Whether any entry is sampled.
    public var isOn: Bool { share > 0 && maxFetchesPerSecond > 0 }
}
