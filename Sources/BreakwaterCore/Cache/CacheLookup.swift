// What a cache lookup found, and the pure rule that classifies an entry by its age.

/// The outcome of `ResponseStore.lookup`: how, if at all, a stored response may be served.
package enum CacheLookup: Sendable {
    /// Within its TTL: serve it (`X-Cache: HIT`).
    case fresh(CacheEntry, age: Duration)
    /// Past its TTL (or soft-purged) but within `stale_while_revalidate`: serve it and refresh it.
    case stale(CacheEntry, age: Duration)
    /// Past `stale_while_revalidate` but within `stale_if_error`: serve it only if the origin fails.
    case staleIfErrorOnly(CacheEntry, age: Duration)
    case miss

    /// Classifies `entry` at `now`; windows are half-open, so at exactly the TTL an entry is stale.
    ///
    /// An entry soft-purged at `staleSince` counts as expired from then on (Varnish's soft purge:
    /// the TTL ends, grace stays). `age` is the time since the entry was stored, as HTTP's `Age`
    /// reports it, never negative even if another thread stored it just after `now` was read.
    package init(classifying entry: CacheEntry, staleSince: ContinuousClock.Instant?, now: ContinuousClock.Instant) {
        let storedAt = entry.storedAt
        let age = max(.zero, now - storedAt)
        let expiresAt = entry.expiresAt(staleSince: staleSince, storedAt: storedAt)
        if now < expiresAt {
            self = .fresh(entry, age: age)
        } else if now < expiresAt + entry.staleWhileRevalidate {
            self = .stale(entry, age: age)
        } else if now < expiresAt + entry.staleIfError {
            self = .staleIfErrorOnly(entry, age: age)
        } else {
            self = .miss
        }
    }

    /// The entry found, whatever its freshness.
    package var entry: CacheEntry? {
        switch self {
        case .fresh(let entry, _), .stale(let entry, _), .staleIfErrorOnly(let entry, _): entry
        case .miss: nil
        }
    }
}
