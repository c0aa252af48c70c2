// The fleet tier's figures (`/stats` `redis`, docs/FLEET.md): one value per event loop,
// recorded by that loop, added together when the admin endpoint reads them.

/// Counters and the call-latency histogram of the Redis tier on one loop (or merged):
/// - `l2Hits`: local misses answered from Redis; `l2Misses`: local misses Redis could not answer
///   (absent, timed out, or Redis down); `registryHits`: documents unknown locally, found in Redis;
/// - `errors`: error replies (OOM, NOAUTH...) and undecodable values; `timeouts`: calls that missed
///   `redis.timeout` (counted as misses, never as client errors);
/// - `rejected`: entries and documents refused for a missing or wrong signature
///   (`redis.signing_key`), each also a miss;
/// - `remotePurges`: purges received from other proxies on the channel; `latency`: round trips of
///   answered calls;
/// - `leaseWaits`, `leaseWaitTime`: waits for another proxy's fetch (lost leases), and their total time;
/// - `purgesPublished`: this proxy's purges Redis applied and logged; `purgesApplied`: other
///   proxies' purges applied here, from the channel or the log; `purgesReplayed`: of those, the
///   ones read from the purge log after a gap; `cacheDrops`: whole local cache dropped because the
///   log no longer reached back; `documentsWrittenBack`: documents restored to a Redis that lost them.
package struct RedisStatistics: Sendable, Equatable {
    package var l2Hits = 0, l2Misses = 0, registryHits = 0
    package var errors = 0, timeouts = 0, remotePurges = 0, rejected = 0
    package var leaseWaits = 0
    package var leaseWaitTime = Duration.zero
    package var purgesPublished = 0, purgesApplied = 0, purgesReplayed = 0, cacheDrops = 0
    package var documentsWrittenBack = 0
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
        purgesPublished += other.purgesPublished
        purgesApplied += other.purgesApplied
        purgesReplayed += other.purgesReplayed
        cacheDrops += other.cacheDrops
        documentsWrittenBack += other.documentsWrittenBack
        latency.merge(other.latency)
    }
}
