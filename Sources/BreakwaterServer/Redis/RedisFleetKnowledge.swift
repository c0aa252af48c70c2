// What a fleet learns about its origin, shared through Redis (docs/FLEET.md, "What is shared"):
// the last good introspected schema, so that a proxy that cannot introspect uses the fleet's, and
// the operations seen answering a per-user type, so that every proxy bypasses them (each member
// signed with `redis.signing_key`, `PerUserOperationMember`). On loop 0's connection; every
// failure leaves the proxy with what it learned itself.

import BreakwaterCore
import Logging

/// Where the schema keeper keeps and finds the fleet's schema; completions run on its loop.
protocol FleetSchemaStore: AnyObject {
    /// Keeps an introspection answer that held a schema, for the fleet; fire and forget.
    func publishSchema(_ introspection: [UInt8])
    /// The fleet's last good introspection answer; nil when none, wrongly signed, or Redis cannot say.
    func fetchSchema(completion: @escaping ([UInt8]?) -> Void)
}

/// The fleet's schema and per-user operations, on one connection.
final class RedisFleetKnowledge: FleetSchemaStore, @unchecked Sendable {
    private let connection: RedisConnection
    private let settings: RedisSettings
    private let state: RedisFleetState
    private let signer: RedisValueSigner?
    private let logger: Logger
    // Touched only on the connection's loop.
    /// The process's per-user operations now (a reload makes new ones).
    private var operations: PerUserOperations?
    /// The shared set's change counter when it was last read; nil: read it all again.
    private var seenVersion: [UInt8]?

    /// How often the shared per-user operations are looked at (one GET while nothing changed).
    static let refreshInterval = Duration.seconds(1)

    init(
        connection: RedisConnection, settings: RedisSettings, state: RedisFleetState, signer: RedisValueSigner?,
        logger: Logger
    ) {
        self.connection = connection
        self.settings = settings
        self.state = state
        self.signer = signer
        self.logger = logger
    }

    private var loopIndex: Int { connection.loop.index }

    // MARK: - Schema

    func publishSchema(_ introspection: [UInt8]) {
        let key = settings.keys.schema
        var value = introspection
        signer?.sign(&value, storedUnder: key)
        let lifetime = Array(String(settings.documentLifetime.wholeMilliseconds).utf8)
        connection.send([Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8), lifetime]) { _ in }
    }

    func fetchSchema(completion: @escaping ([UInt8]?) -> Void) {
        let key = settings.keys.schema
        connection.send([Array("GET".utf8), Array(key.utf8)]) { [state, signer, logger, loopIndex] reply in
            guard let bytes = reply?.bytes else { return completion(nil) }
            guard let signer else { return completion(bytes) }
            guard let count = signer.verifiedPayloadCount(of: bytes, storedUnder: key) else {
                state.health.recordRejected(loop: loopIndex, redisKey: key, logger: logger)
                return completion(nil)
            }
            completion(Array(bytes[..<count]))
        }
    }

    // MARK: - Per-user operations

    /// Shares what `operations` learns, and hands it what the fleet learned; from any thread,
    /// again with each reload's new set.
    func share(_ operations: PerUserOperations) {
        let bound = LoopBound(self)
        operations.onLearned { digest, name in
            bound.value.connection.loop.execute { bound.value.publish(digest, operationName: name) }
        }
        connection.loop.execute {
            bound.value.operations = operations
            bound.value.seenVersion = nil
            bound.value.refresh()
        }
    }

    /// Starts looking at the shared set every `refreshInterval`; call once, on the loop.
    func start() {
        connection.loop.schedule(after: Self.refreshInterval) { [weak self] in
            guard let self else { return }
            self.refresh()
            self.start()
        }
    }

    /// Adds the operation to the shared set, signed with `redis.signing_key` when there is one
    /// (`PerUserOperationMember`).
    private func publish(_ digest: SHA256Digest, operationName: String?) {
        let keys = settings.keys
        let member = PerUserOperationMember.encode(
            digest, operationName: operationName, signer: signer, setKey: keys.perUserOperations)
        let arguments = [
            Array("EVAL".utf8), Array(RedisScripts.sharePerUserOperation.utf8), Array("2".utf8),
            Array(keys.perUserOperations.utf8), Array(keys.perUserOperationsVersion.utf8), member,
            Array(String(settings.documentLifetime.wholeMilliseconds).utf8),
        ]
        connection.send(arguments) { _ in }
    }

    /// Reads the shared set when its counter moved since the last read, and adopts every member.
    private func refresh() {
        guard let operations else { return }
        let keys = settings.keys
        connection.send([Array("GET".utf8), Array(keys.perUserOperationsVersion.utf8)]) { [weak self] reply in
            guard let self, let version = reply?.bytes, version != self.seenVersion else { return }
            self.connection.send([Array("SMEMBERS".utf8), Array(keys.perUserOperations.utf8)]) { [weak self] reply in
                guard let self, case .array(let members)? = reply, operations === self.operations else { return }
                let before = operations.count
                for member in members {
                    guard let bytes = member.bytes else { continue }
                    switch PerUserOperationMember.decode(bytes, signer: self.signer, setKey: keys.perUserOperations) {
                    case .operation(let digest, let name):
                        operations.adopt(digest, operationName: name)
                    case .rejected:
                        // Counted and logged as a refused entry or document is.
                        self.state.health.recordRejected(
                            loop: self.loopIndex, redisKey: keys.perUserOperations, logger: self.logger)
                    case .unreadable:
                        continue
                    }
                }
                self.seenVersion = version
                let adopted = operations.count - before
                if adopted > 0 {
                    self.logger.info(
                        "per-user operations learned by other proxies: bypassed here too",
                        metadata: ["operations.adopted": "\(adopted)", "operations.known": "\(operations.count)"])
                }
            }
        }
    }
}
