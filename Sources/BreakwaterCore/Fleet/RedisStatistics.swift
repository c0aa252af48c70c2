// The shared tier's figures (SPEC section 7, `/stats` `redis`): one value per event loop,
// recorded by that loop, added together when the admin endpoint reads them.

/// Counters and the call-latency histogram of the Redis tier on one loop (or merged):
/// - `l2Hits`: local misses answered from Redis; `l2Misses`: local misses Redis could not answer
///   (absent, timed out, or Redis down); `registryHits`: documents unknown locally, found in Redis;
/// - `errors`: error replies (OOM, NOAUTH...) and undecodable values; `timeouts`: calls that missed
///   `redis.timeout` (counted as misses, never as client errors);
/// - `rejected`: entries and documents refused for a missing or wrong signature
///   (`redis.signing_key`), each also a miss;
/// - `remotePurges`: purges received from other proxies; `latency`: round trips of answered calls;
/// - `leaseWaits`, `leaseWaitTime`: waits for another proxy's fetch (lost leases), and their total time.
package struct RedisStatistics: Sendable, Equatable {
    package var l2Hits = 0, l2Misses = 0, registryHits = 0
    package var errors = 0, timeouts = 0, remotePurges = 0, rejected = 0
    package var leaseWaits = 0
    package var leaseWaitTime = Duration.zero
    package var latency = LatencyHistogram()

    package init() {}

    package mutating func merge(_ other: RedisStatistics) {
        l2Hits += other.l2Hits
        l2Misses += other.l2Misses
        registryHits += other.registryHits
        errors += other.errors
        timeouts += other.timeouts
        remotePurges += other.remotePurges
        rejected += other.rejected
        leaseWaits += other.leaseWaits
        leaseWaitTime += other.leaseWaitTime
        latency.merge(other.latency)
    }
}
