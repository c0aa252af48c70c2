// The fleet tier of one process (docs/FLEET.md): a Redis connection per event loop, one
// subscriber for the purge channel, the purge generation and log check, the registry write-back,
// and the tiers the request flow uses.

import BreakwaterCore
import Foundation
import Logging

/// Everything this proxy shares with the others of its fleet through Redis.
package final class RedisFleet: @unchecked Sendable {
    package let settings: RedisSettings
    let state: RedisFleetState
    /// One command connection per loop, each touched only on its loop.
    private let connections: [RedisConnection]
    private let subscriber: RedisConnection
    private let logger: Logger
    package let purgeBus: RedisPurgeBus
    /// Where this proxy is in the fleet's purges, for the cache snapshot's header (docs/FLEET.md):
    /// the last purge-log entry applied and the purge-everything generation.
    package var purgeLogPosition: (position: PurgeLogID?, generation: UInt64) {
        (purgeBus.purgeLogPosition, state.generation)
    }
    /// Each loop's tiers, made on first use (on that loop).
    private let responseTiers: [RedisResponseTier]
    private let documentTiers: [RedisDocumentTier]
    /// The schema and per-user operations the fleet shares, on loop 0's connection.
    let knowledge: RedisFleetKnowledge
    /// The fleet's freshness samples (docs/FRESHNESS.md), on loop 0's connection.
    let freshnessPool: RedisFreshnessPool
    /// Finds and follows the master with `redis.sentinels`; nil when `redis.url` names the Redis.
    private var sentinel: RedisSentinelWatcher?

    /// How often loop 0 checks the generation, the data epoch and the purge log's end.
    private static let generationRefresh = Duration.seconds(1)
    /// Writes the registry back to a Redis that started empty (loop 0).
    private let writeBack: RedisRegistryWriteBack

    package init(settings: RedisSettings, loops: [EventLoop], logger: Logger) {
        self.settings = settings
        self.logger = logger
        let state = RedisFleetState(loopCount: loops.count, callTimeout: settings.timeout)
        self.state = state
        connections = loops.map {
            RedisConnection(
                loop: $0, endpoint: settings.endpoint, timeout: settings.timeout, role: .commands, health: state.health,
                logger: logger, requiresMaster: settings.usesSentinel)
        }
        // One signer for every loop: its prepared key is immutable.
        let signer = settings.signingKey.isEmpty
            ? nil : RedisValueSigner(hmac: OpenSSLHMACSHA256(key: Array(settings.signingKey.utf8)))
        let bus = RedisPurgeBus(settings: settings, state: state, connection: connections[0], logger: logger)
        purgeBus = bus
        subscriber = RedisConnection(
            loop: loops[0], endpoint: settings.endpoint, timeout: settings.timeout,
            role: .subscriber(channels: [settings.keys.purgeChannel], onMessage: { _, payload in bus.received(payload) }),
            health: state.health, logger: logger)
        responseTiers = connections.map {
            RedisResponseTier(connection: $0, settings: settings, state: state, signer: signer, logger: logger)
        }
        documentTiers = connections.map {
            RedisDocumentTier(connection: $0, settings: settings, state: state, signer: signer, logger: logger)
        }
        knowledge = RedisFleetKnowledge(
            connection: connections[0], settings: settings, state: state, signer: signer, logger: logger)
        writeBack = RedisRegistryWriteBack(tier: documentTiers[0], state: state, logger: logger)
        freshnessPool = RedisFreshnessPool(connection: connections[0], settings: settings)
        if settings.usesSentinel {
            sentinel = RedisSentinelWatcher(settings: settings, loop: loops[0], health: state.health, logger: logger) {
                [weak self] master in self?.move(to: master)
            }
        }
    }

    /// Every loop's connection and the subscriber follow the master to `address`, each on its loop.
    private func move(to address: RedisHostPort) {
        for connection in connections + [subscriber] {
            let bound = LoopBound(connection)
            connection.loop.execute { bound.value.move(to: .tcp(host: address.host, port: address.port)) }
        }
    }

    /// Where the registry write-back finds this proxy's documents: their digests, most useful
    /// first, and each one's text. Set before `start`.
    package func setRegistrySource(
        digests: @escaping @Sendable () -> [SHA256Digest], document: @escaping @Sendable (SHA256Digest) -> String?
    ) {
        writeBack.source = (digests, document)
    }

    /// Connects every loop's connection and the subscriber; returns at once (Redis may be down).
    package func start() {
        logger.info(
            "redis fleet tier",
            metadata: [
                "redis.url": "\(settings.endpoint)", "redis.l2": .stringConvertible(settings.l2),
                "redis.sentinels": "\(settings.sentinels.map(\.description))",
                "redis.signed": .stringConvertible(!settings.signingKey.isEmpty),
            ])
        for connection in connections {
            let bound = LoopBound(connection)
            connection.loop.execute { [self] in
                let connection = bound.value
                connection.onReady = { [weak self, connection] in
                    self?.refreshGeneration()
                    self?.wakeTheOthers(of: connection)
                }
                // The master may have moved: the sentinels are asked again.
                connection.onLost = { [weak self] in self?.sentinel?.connectionLost() }
                connection.start()
                if connection.loop.index == 0 { scheduleGenerationRefresh(on: connection) }
            }
        }
        let subscriber = LoopBound(self.subscriber)
        let (bus, writeBack) = (LoopBound(purgeBus), LoopBound(writeBack))
        self.subscriber.loop.execute {
            // The subscriber and the bus share loop 0.
            subscriber.value.onReady = { bus.value.subscribed() }
            subscriber.value.onLost = { bus.value.subscriptionLost() }
            bus.value.onCheck = { epoch, setHere in writeBack.value.observed(epoch: epoch, setHere: setHere) }
            subscriber.value.start()
        }
        if let sentinel {
            let bound = LoopBound(sentinel)
            sentinel.loop.execute { bound.value.start() }
        }
        let knowledge = LoopBound(self.knowledge)
        connections[0].loop.execute { knowledge.value.start() }
    }

    /// `ready` reached Redis: every other connection waiting out a backoff retries now, each on
    /// its own loop, so the whole process shares again at once rather than loop by loop.
    private func wakeTheOthers(of ready: RedisConnection) {
        for connection in connections + [subscriber] where connection !== ready {
            let bound = LoopBound(connection)
            connection.loop.execute { bound.value.retryNow() }
        }
    }

    /// The response tier of `loop`; nil when `redis.l2` is off.
    package func responseTier(for loop: EventLoop) -> RedisResponseTier? {
        settings.l2 ? responseTiers[loop.index] : nil
    }

    /// The fleet registry of `loop`.
    package func documentTier(for loop: EventLoop) -> RedisDocumentTier { documentTiers[loop.index] }

    /// Whether Redis answers, and the `/stats` `redis` figures.
    package var health: RedisHealth { state.health }

    // MARK: - Generation

    /// Runs the check on loop 0 (the generation never goes backwards: FleetGeneration).
    private func refreshGeneration() {
        let bus = LoopBound(purgeBus)
        purgeBus.loop.execute { bus.value.check() }
    }

    private func scheduleGenerationRefresh(on connection: RedisConnection) {
        connection.loop.schedule(after: Self.generationRefresh) { [weak self] in
            guard let self else { return }
            self.purgeBus.check()
            self.scheduleGenerationRefresh(on: connection)
        }
    }
}

/// The wall clock now, in the form cache entries carry.
func wallClockNow() -> WallClockTime {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return WallClockTime(millisecondsSinceEpoch: Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000)
}


extension RedisFleet {
    /// The fleet of `configuration`, or nil when it sets no `redis.url`; not started yet.
    static func make(_ configuration: Configuration, loops: [EventLoop], logger: Logger) throws(ServerError) -> RedisFleet? {
        let settings: RedisSettings?
        do throws(RedisEndpointError) {
            settings = try RedisSettings(configuration)
        } catch {
            throw .setup("redis.url: \(error.message)")
        }
        return settings.map { RedisFleet(settings: $0, loops: loops, logger: logger) }
    }

    /// The fleet tiers `loop`'s proxy handler talks to.
    func tiers(for loop: EventLoop) -> LoopTiers {
        LoopTiers(responses: responseTier(for: loop), documents: documentTier(for: loop))
    }

    /// What `/stats` and `/metrics` show of the fleet tier.
    var status: RedisStatus {
        var status = RedisStatus(connected: health.isUp, statistics: health.statistics)
        status.readyConnections = health.readyConnectionCount
        status.connections = health.connectionCount
        status.subscribed = health.isSubscribed
        if let sentinel {
            (status.master, status.failovers) = sentinel.status
        } else if case .tcp(let host, let port) = settings.endpoint.address {
            status.master = RedisHostPort(host: host, port: port).description
        } else if case .unix(let path) = settings.endpoint.address {
            status.master = path
        }
        status.generation = state.generation
        status.purgesPending = state.pendingPurgeCount
        return status
    }
}
