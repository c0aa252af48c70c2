// The fleet's shared persisted-query registry (SPEC section 7) on one event loop's connection:
// registrations are written through; a hash unknown locally is read here before
// PersistedQueryNotFound is answered.

import BreakwaterCore

/// The shared registry of one loop; completions run on that loop, exactly once.
package final class RedisDocumentTier: DocumentTier {
    private let connection: RedisConnection
    private let settings: RedisSettings
    private let state: RedisFleetState

    init(connection: RedisConnection, settings: RedisSettings, state: RedisFleetState) {
        self.state = state
        self.connection = connection
        self.settings = settings
    }

    /// The document registered under `hash` by any proxy; nil when unknown or Redis cannot say.
    /// The caller verifies the hash before trusting the text.
    package func lookup(_ hash: SHA256Digest, completion: @escaping (String?) -> Void) {
        let loopIndex = connection.loop.index
        connection.send([Array("GET".utf8), Array(settings.keys.document(hash).utf8)]) { [state] reply in
            guard let bytes = reply?.bytes, let document = String(validating: bytes, as: UTF8.self) else {
                return completion(nil)
            }
            state.health.record(loop: loopIndex) { $0.registryHits += 1 }
            completion(document)
        }
    }

    /// Makes a verified registration known to the fleet for `documentLifetime`; fire and forget.
    package func publish(_ hash: SHA256Digest, document: String) {
        let arguments = [
            "SET", settings.keys.document(hash), document, "PX", String(settings.documentLifetime.redisMilliseconds),
        ]
        connection.send(arguments.map { Array($0.utf8) }) { _ in }
    }
}
