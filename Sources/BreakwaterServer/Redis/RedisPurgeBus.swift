// Purges across the fleet (SPEC section 7): a purge applied here is applied to the L2 in Redis
// (index sets, or a new generation for everything) and announced on the purge channel; the
// other proxies' announcements are handed to the local purger.

import BreakwaterCore
import Synchronization

/// The fleet's purge channel for this process; thread-safe.
package final class RedisPurgeBus: PurgeBus, @unchecked Sendable {
    private let settings: RedisSettings
    private let state: RedisFleetState
    /// Loop 0's command connection: purges are rare and belong to no loop.
    private let connection: RedisConnection
    private let handler = Mutex<(@Sendable (PurgeRequest) -> Void)?>(nil)

    init(settings: RedisSettings, state: RedisFleetState, connection: RedisConnection) {
        self.settings = settings
        self.state = state
        self.connection = connection
    }

    /// Calls `handler` with each purge another proxy announced (on loop 0's thread).
    package func setRemotePurgeHandler(_ handler: @escaping @Sendable (PurgeRequest) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    /// Applies `purge` (already applied locally) to the L2 and announces it to the fleet; from
    /// any thread. With Redis down it reaches no one else: each proxy's entries expire by TTL.
    package func publish(_ purge: PurgeRequest) {
        let bound = LoopBound(self)
        connection.loop.execute { bound.value.applyAndAnnounce(purge) }
    }

    private func applyAndAnnounce(_ purge: PurgeRequest) {
        let keys = settings.keys
        let generation = state.generation
        guard let index = keys.index(purge.selector, generation: generation) else {
            return purge.soft ? softPurgeEverything(purge, generation: generation) : hardPurgeEverything(purge)
        }
        let script = purge.soft ? RedisScripts.purgeSoft : RedisScripts.purgeHard
        let arguments = ["EVAL", script, "1", index, String(wallClockNow().millisecondsSinceEpoch)]
        // Announced after the L2 purge answered, so a proxy told of it cannot refill from Redis.
        connection.send(arguments.map { Array($0.utf8) }) { [self] _ in announce(purge, generation: generation) }
    }

    /// A hard purge of everything: a new generation, under which no entry exists yet.
    private func hardPurgeEverything(_ purge: PurgeRequest) {
        connection.send([Array("INCR".utf8), Array(settings.keys.generation.utf8)]) { [self] reply in
            guard case .integer(let value)? = reply, value > 0 else { return }
            state.advanceGeneration(to: UInt64(value))
            announce(purge, generation: UInt64(value))
        }
    }

    /// A soft purge of everything: entries of this generation stored before now turn stale.
    private func softPurgeEverything(_ purge: PurgeRequest, generation: UInt64) {
        let lifetime = Duration.seconds(7 * 24 * 3600).redisMilliseconds
        let arguments = [
            "SET", settings.keys.softAll(generation: generation), String(wallClockNow().millisecondsSinceEpoch), "PX",
            String(lifetime),
        ]
        connection.send(arguments.map { Array($0.utf8) }) { [self] _ in announce(purge, generation: generation) }
    }

    private func announce(_ purge: PurgeRequest, generation: UInt64) {
        let message = PurgeMessage(sender: state.instanceID, purge: purge, generation: generation)
        connection.send([Array("PUBLISH".utf8), Array(settings.keys.purgeChannel.utf8), message.encoded]) { _ in }
    }

    /// A message from the purge channel (on the subscriber's loop).
    func received(_ payload: [UInt8]) {
        guard let message = PurgeMessage(payload), message.sender != state.instanceID else { return }
        state.advanceGeneration(to: message.generation)
        state.health.record(loop: connection.loop.index) { $0.remotePurges += 1 }
        handler.withLock { $0 }?(message.purge)
    }
}
