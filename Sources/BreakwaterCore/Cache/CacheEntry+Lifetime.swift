// How long an entry can serve anybody, and what a soft purge or a lowered TTL does to it: the rules
// the local store and the fleet's second-level cache (docs/FLEET.md) both follow.

extension CacheEntry {
    /// From its storing until it can serve nobody, not even a request whose origin failed: the TTL
    /// and the longer of the two stale windows. The fleet's tier keeps an entry this long.
    package var lifetime: Duration { ttl + max(staleWhileRevalidate, staleIfError) }

    /// What remains of `lifetime` at `wallNow`, in whole milliseconds on the wall clock (other
    /// proxies read the entry on theirs); zero or less once it is over.
    package func remainingLifetimeMilliseconds(at wallNow: WallClockTime) -> Int64 {
        lifetime.wholeMilliseconds - (wallNow.millisecondsSinceEpoch - storedAtWallClock.millisecondsSinceEpoch)
    }

    /// The entry as soft purges left it: stale from the earliest purge made at or after its storing
    /// (`marks`, wall-clock instants; a purge of everything marks only the entries stored before
    /// it), that is, its TTL ends there. Unchanged when no such purge came before its TTL ended.
    package func softPurged(markedAt marks: [WallClockTime]) -> CacheEntry {
        let stored = storedAtWallClock
        guard let staleFrom = marks.filter({ $0 >= stored }).min() else { return self }
        let purgedTTL = Duration.milliseconds(staleFrom.millisecondsSinceEpoch - stored.millisecondsSinceEpoch)
        guard purgedTTL < ttl else { return self }
        return withTTL(purgedTTL)
    }

    /// The same answer, stored at the same instants, with `ttl` instead of its own: a copy (an
    /// entry never changes once shared), whose `Cache-Control` announces the new TTL.
    package func withTTL(_ ttl: Duration) -> CacheEntry {
        CacheEntry.make(
            key: key, body: body, contentType: contentType, etag: etag, extraHeaders: extraHeaders,
            storedAt: storedAt, storedAtWallClock: storedAtWallClock, ttl: ttl,
            staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError,
            documentDigest: documentDigest, operationName: operationName, tags: tags, isPerUser: isPerUser,
            ttlBasis: ttlBasis)
    }
}
