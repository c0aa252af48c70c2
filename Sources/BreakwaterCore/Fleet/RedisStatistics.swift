// The shared tier's figures (SPEC section 7, `/stats` `redis`): one value per event loop,
// recorded by that loop, added together when the admin endpoint reads them.

/// Counters and the call-latency histogram of the Redis tier on one loop (or merged).
package struct RedisStatistics: Sendable, Equatable {
    /// Local misses answered from Redis.
    package var l2Hits = 0
    /// Local misses Redis could not answer (absent, timed out, or Redis down).
    package var l2Misses = 0
    /// Documents unknown locally and found in Redis.
    package var registryHits = 0
    /// Error replies (OOM, NOAUTH...) and undecodable values.
    package var errors = 0
    /// Calls that missed `redis.timeout` (counted as misses, never as client errors).
    package var timeouts = 0
    /// Purges received from other proxies.
    package var remotePurges = 0
    /// Round-trip time of answered calls.
    package var latency = LatencyHistogram()

    package init() {}

    package mutating func merge(_ other: RedisStatistics) {
        l2Hits += other.l2Hits
        l2Misses += other.l2Misses
        registryHits += other.registryHits
        errors += other.errors
        timeouts += other.timeouts
        remotePurges += other.remotePurges
        latency.merge(other.latency)
    }
}
