// The fleet's shared persisted-query registry (docs/FLEET.md) on one event loop's connection:
// registrations are written through; a hash unknown locally is read here before
// PersistedQueryNotFound is answered. With `redis.signing_key` every document is signed like an
// L2 entry, and one with a wrong signature reads as unknown (docs/FLEET.md, "Trust boundary").

import BreakwaterCore
import Logging

/// The fleet registry of one loop; completions run on that loop, exactly once.
package final class RedisDocumentTier: DocumentTier {
    private let connection: RedisConnection
    private let settings: RedisSettings
    private let state: RedisFleetState
    /// Signs every document written and checks every document read; nil without a signing key.
    private let signer: RedisValueSigner?
    private let logger: Logger

    init(
        connection: RedisConnection, settings: RedisSettings, state: RedisFleetState, signer: RedisValueSigner?,
        logger: Logger
    ) {
        self.state = state
        self.connection = connection
        self.settings = settings
        self.signer = signer
        self.logger = logger
    }

    /// The document registered under `hash` by any proxy; nil when unknown, wrongly signed, or
    /// Redis cannot say. The caller verifies the hash before trusting the text.
    package func lookup(_ hash: SHA256Digest, completion: @escaping (String?) -> Void) {
        let loopIndex = connection.loop.index
        let key = settings.keys.document(hash)
        connection.send([Array("GET".utf8), Array(key.utf8)]) { [state, signer, logger] reply in
            guard let bytes = reply?.bytes else { return completion(nil) }
            var count = bytes.count
            if let signer {
                guard let payload = signer.verifiedPayloadCount(of: bytes, storedUnder: key) else {
                    state.health.recordRejected(loop: loopIndex, redisKey: key, logger: logger)
                    return completion(nil)
                }
                count = payload
            }
            guard let document = String(validating: bytes[..<count], as: UTF8.self) else { return completion(nil) }
            state.health.record(loop: loopIndex) { $0.registryHits += 1 }
            completion(document)
        }
    }

    /// Makes a verified registration known to the fleet for `documentLifetime`; fire and forget.
    package func publish(_ hash: SHA256Digest, document: String) {
        let key = settings.keys.document(hash)
        var value = Array(document.utf8)
        signer?.sign(&value, storedUnder: key)
        let arguments: [[UInt8]] = [
            Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8),
            Array(String(settings.documentLifetime.wholeMilliseconds).utf8),
        ]
        connection.send(arguments) { _ in }
    }

    /// Writes back a document Redis lost, unless a registration put it there since (`SET NX`);
    /// `completion` gets whether Redis answered.
    func restore(_ hash: SHA256Digest, document: String, completion: @escaping (Bool) -> Void) {
        let key = settings.keys.document(hash)
        var value = Array(document.utf8)
        signer?.sign(&value, storedUnder: key)
        let arguments: [[UInt8]] = [
            Array("SET".utf8), Array(key.utf8), value, Array("PX".utf8),
            Array(String(settings.documentLifetime.wholeMilliseconds).utf8), Array("NX".utf8),
        ]
        connection.send(arguments) { reply in
            completion(reply != nil && reply?.isError == false)
        }
    }

    var loop: EventLoop { connection.loop }
    var loopIndex: Int { connection.loop.index }
}
