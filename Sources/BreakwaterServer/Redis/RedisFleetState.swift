// What every loop's Redis tiers share in one process: the health and figures, this proxy's id
// in the fleet, and the purge-everything generation that cache keys live under.

import Foundation
import Synchronization

/// Process-wide shared-tier state; thread-safe.
final class RedisFleetState: Sendable {
    let health: RedisHealth
    /// Tells this proxy's own messages and leases from the others'.
    let instanceID = UUID().uuidString.lowercased()
    private let currentGeneration = Atomic<UInt64>(0)

    init(loopCount: Int) {
        health = RedisHealth(loopCount: loopCount)
    }

    var generation: UInt64 { currentGeneration.load(ordering: .acquiring) }

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
