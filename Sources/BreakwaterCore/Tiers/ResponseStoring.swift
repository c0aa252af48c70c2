// The local response cache behind a protocol, so the flow and the purger do not depend on how
// entries are kept (today `ResponseStore`: sharded SIEVE in memory).

/// The process-local response cache, shared by every event loop; every call is thread-safe and
/// short (no I/O).
package protocol ResponseStoring: AnyObject, Sendable {
    /// The largest entry cost that can be stored; a costlier answer is passed through (BYPASS).
    var maxEntryCost: Int { get }
    func lookup(_ key: CacheKey, now: ContinuousClock.Instant) -> CacheLookup
    @discardableResult func store(_ entry: CacheEntry, now: ContinuousClock.Instant) -> Int
    @discardableResult func purge(_ selector: PurgeSelector, soft: Bool, now: ContinuousClock.Instant) -> Int
    var statistics: StoreStatistics { get }
    /// The longest a cache in front may keep an answer stored here since start.
    var longestPublicLifetime: Duration { get }
    /// The purges applied lately: a fetch that began before one does not store what it reaches.
    var purges: PurgeHistory { get }
}

extension ResponseStore: ResponseStoring {}
