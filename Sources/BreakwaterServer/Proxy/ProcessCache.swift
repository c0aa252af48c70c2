// The cache state every event loop shares: the store, the fetches in flight, the purger.

import BreakwaterCore
import Synchronization

/// The response cache as the proxy uses it (README "The response cache").
final class ProcessCache: Sendable {
    let store: ResponseStore
    /// Clients waiting for a fetch in flight, answered on their own loops (responders hop there).
    let inFlight = InFlightTable<CacheKey, FetchWaiter>(shardHash: { $0.shardHash })
    /// The one way entries are purged: admin, mutations, the fleet.
    let purger: CachePurger
    let hasher = OpenSSLSHA256()
    let clock = SystemFlowClock()
    /// Freshness sampling of stored entries (docs/FRESHNESS.md).
    let freshness: FreshnessSampling
    /// The cache snapshot's load and writes, for `/stats`; nil while `cache.snapshot` is "".
    let snapshotFigures = Mutex<SnapshotFigures?>(nil)

    init(
        maxBytes: Int, freshness: FreshnessSettings = FreshnessSettings(share: 0),
        policy: CachePolicy = CachePolicy(Configuration.Cache())
    ) {
        store = ResponseStore(maxBytes: maxBytes)
        self.freshness = FreshnessSampling(settings: freshness, policy: policy)
        purger = CachePurger(store: store, clock: clock)
    }
}
