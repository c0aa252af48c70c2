// Whether the fleet's Redis answers, seen by every loop's connection: the `breakwater_redis_up`
// gauge, one log line per change of state, and the per-loop statistics behind `/stats` `redis`.

import BreakwaterCore
import Logging
import Synchronization

/// The fleet tier's state and figures for the whole process; thread-safe.
package final class RedisHealth: Sendable {
    /// Command connections ready now (one per loop at most).
    private let readyConnections = Atomic<Int>(0)
    /// Whether the purge subscriber is subscribed: purges from other proxies reach this one.
    private let subscribed = Atomic<Bool>(false)
    /// Whether "down" was already logged since Redis last answered: later failed retries are quiet.
    private let reportedDown = Atomic<Bool>(false)
    private let loops: [LoopFigures]
    /// Rejected values are logged at most once a minute: a forged entry is read on every miss.
    private let rejectionLog = Mutex(LogThrottle(interval: .seconds(60)))
    /// Out-of-memory replies are logged at most once a minute.
    private let outOfMemoryLog = Mutex(LogThrottle(interval: .seconds(60)))

    package init(loopCount: Int) {
        loops = (0..<loopCount).map { _ in LoopFigures() }
    }

    /// Whether at least one connection can reach Redis.
    package var isUp: Bool { readyConnections.load(ordering: .relaxed) > 0 }

    /// How many loops' command connections are ready now.
    package var readyConnectionCount: Int { readyConnections.load(ordering: .relaxed) }

    /// Command connections the process has, ready or not (one per loop).
    package var connectionCount: Int { loops.count }

    /// Whether purges published by the other proxies reach this one now.
    package var isSubscribed: Bool { subscribed.load(ordering: .relaxed) }

    func subscriberChanged(subscribed now: Bool) { subscribed.store(now, ordering: .relaxed) }

    /// Every loop's statistics, merged.
    package var statistics: RedisStatistics {
        var total = RedisStatistics()
        for loop in loops { total.merge(loop.value.withLock { $0 }) }
        return total
    }

    package func record(loop: Int, _ update: (inout RedisStatistics) -> Void) {
        loops[loop].value.withLock { update(&$0) }
    }

    func recordLatency(_ duration: Duration, loop: Int) { record(loop: loop) { $0.latency.record(duration) } }
    func recordError(loop: Int) { record(loop: loop) { $0.errors += 1 } }

    /// An error reply: counted; an OOM (Redis full, writes refused) is logged at warning at most
    /// once a minute, with how many came since the last line.
    func recordError(loop: Int, message: String, logger: Logger) {
        recordError(loop: loop)
        guard message.hasPrefix("OOM") else { return }
        guard let count = outOfMemoryLog.withLock({ $0.record(at: .now) }) else { return }
        logger.warning(
            "redis refuses writes: out of memory (maxmemory reached); entries, documents and purges are not stored",
            metadata: ["redis.reply": "\(message)", "redis.refused_since_last_line": "\(count)"])
    }
    func recordTimeout(loop: Int) { record(loop: loop) { $0.timeouts += 1 } }

    /// A value at `redisKey` failed its signature check (`redis.signing_key`): counted, and logged
    /// at warning at most once a minute with how many were rejected since the last line.
    func recordRejected(loop: Int, redisKey: String, logger: Logger) {
        record(loop: loop) { $0.rejected += 1 }
        let now = ContinuousClock.now
        guard let count = rejectionLog.withLock({ $0.record(at: now) }) else { return }
        logger.warning(
            // Forged, altered, moved to another key, or written by a proxy with another key.
            "redis value rejected: wrong signature (forged, or another redis.signing_key); served as a miss",
            metadata: ["redis.key": "\(redisKey)", "redis.rejected_since_last_line": .stringConvertible(count)])
    }

    /// A command connection became ready or stopped being ready; logs when the process as a
    /// whole goes from no connection to one, or from one to none.
    func connectionChanged(ready: Bool, endpoint: RedisEndpoint, logger: Logger, reason: String? = nil) {
        if ready {
            if readyConnections.add(1, ordering: .relaxed).newValue == 1 {
                reportedDown.store(false, ordering: .relaxed)
                logger.notice("redis connected: the fleet shares registry, cache and purges", metadata: ["redis.url": "\(endpoint)"])
            }
        } else if readyConnections.subtract(1, ordering: .relaxed).newValue == 0,
            !reportedDown.exchange(true, ordering: .relaxed)
        {
            logger.notice(
                "redis disconnected: serving from local memory, reconnecting",
                metadata: ["redis.url": "\(endpoint)", "redis.reason": "\(reason ?? "")"])
        }
    }

    /// An attempt to connect failed; logged once until Redis answers again.
    func connectFailed(endpoint: RedisEndpoint, logger: Logger, reason: String) {
        guard readyConnections.load(ordering: .relaxed) == 0, !reportedDown.exchange(true, ordering: .relaxed) else {
            return
        }
        logger.notice(
            "redis unreachable: serving from local memory, retrying",
            metadata: ["redis.url": "\(endpoint)", "redis.reason": "\(reason)"])
    }
}

/// One loop's figures behind a lock only that loop and the admin reader take.
private final class LoopFigures: Sendable {
    let value = Mutex(RedisStatistics())
}
