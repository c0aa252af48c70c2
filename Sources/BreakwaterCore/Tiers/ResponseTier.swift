// The second-level response cache a fleet shares (docs/FLEET.md), as the flow sees it. Redis
// implements it; without a fleet tier there is none and the flow goes from local miss to origin.

/// A shared response cache bound to one event loop: every completion runs on that loop, exactly
/// once, and a call never blocks it. Failures (timeout, tier down) read as misses, never errors.
package protocol ResponseTier: AnyObject {
    /// The entry for `key`, or nil on a miss, a timeout or while the tier is down; with it the
    /// fleet's purge count, or nil when the tier did not answer.
    func lookup(_ key: CacheKey, completion: @escaping (CacheEntry?, FleetPurgeCount?) -> Void)
    /// Writes `entry` for its whole lifetime (TTL and stale windows), unless a purge counted after
    /// `purges` reached it (the answer was read before that purge); fire and forget.
    func store(_ entry: CacheEntry, unlessPurgedSince purges: FleetPurgeCount)
    /// Tries to take the fleet-wide lease to fetch `key` from the origin, a fetch that lasts at
    /// most `ttl`; true: this proxy fetches (also when the tier is down), false: another proxy
    /// holds it. The tier keeps the lease about one fetch's time, renewed while it is held.
    func acquireLease(_ key: CacheKey, ttl: Duration, completion: @escaping (Bool) -> Void)
    /// Gives the lease back once the fetch is over (its entry, if any, written first).
    func releaseLease(_ key: CacheKey)
    /// Waits up to `timeout` for another proxy to store `key`; nil when it did not.
    func awaitEntry(_ key: CacheKey, timeout: Duration, completion: @escaping (CacheEntry?) -> Void)
}
