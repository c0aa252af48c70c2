// What every loop's Redis tiers share in one process: the health and figures, this proxy's id
// in the fleet, the purge-everything generation that cache keys live under, and this proxy's
// purges still on their way to Redis (which hide the L2 entries they reach).

import BreakwaterCore
import Foundation
import Synchronization

/// Process-wide shared-tier state; thread-safe.
final class RedisFleetState: Sendable {
    let health: RedisHealth
    /// Tells this proxy's own messages and leases from the others'.
    let instanceID = UUID().uuidString.lowercased()
    private let currentGeneration = Atomic<UInt64>(0)
    /// This proxy's purges Redis has not confirmed yet.
    let outbox: Mutex<PurgeOutbox>
    /// How many purges the outbox holds, and how many hide entries (pending or just confirmed):
    /// the latter is read without the lock on every L2 read.
    private let pendingPurges = Atomic<Int>(0)
    private let hidingPurges = Atomic<Int>(0)

    /// `callTimeout` is `redis.timeout`: a confirmed purge hides entries longer than any read takes.
    init(loopCount: Int, callTimeout: Duration = .milliseconds(50)) {
        health = RedisHealth(loopCount: loopCount)
        outbox = Mutex(PurgeOutbox(retention: max(.seconds(2), callTimeout + .seconds(1))))
    }

    var generation: UInt64 { currentGeneration.load(ordering: .acquiring) }

    var pendingPurgeCount: Int { pendingPurges.load(ordering: .relaxed) }

    /// Changes the outbox and keeps its count current.
    func updateOutbox<T>(_ body: (inout PurgeOutbox) -> T) -> T {
        outbox.withLock { outbox in
            defer {
                pendingPurges.store(outbox.pending.count, ordering: .relaxed)
                hidingPurges.store(outbox.hidingCount, ordering: .relaxed)
            }
            return body(&outbox)
        }
    }

    /// What this proxy's unconfirmed (or just confirmed) purges make of `entry`, read from the L2.
    func pendingPurgeVerdict(on entry: CacheEntry) -> PurgeOutbox.Verdict? {
        guard hidingPurges.load(ordering: .relaxed) > 0 else { return nil }
        let now = ContinuousClock.now
        return outbox.withLock { $0.verdict(on: entry, now: now) }
    }

    /// Moves to `generation` if it is newer (generations only grow).
    func advanceGeneration(to generation: UInt64) {
        var current = currentGeneration.load(ordering: .relaxed)
        while generation > current {
            let (exchanged, original) = currentGeneration.compareExchange(
                expected: current, desired: generation, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }
}
