// The schema the proxy currently knows and the text it sends upstream for each document (SPEC
// section 4): rewritten once per document hash, forgotten as a whole when a new schema arrives
// (introspection every 5 minutes, a reload) so no rewrite made under an old schema outlives it.

import Synchronization

/// The current `DocumentRewriter` (none while no schema is known) and its rewrites by document hash.
///
/// Shared by every event loop. Lookups take the lock briefly; a rewrite (a parse) runs outside it,
/// so two loops may rewrite one new document at once and store the same text: harmless and rare.
package final class DocumentRewrites: Sendable {
    private struct State {
        var rewriter: DocumentRewriter?
        /// Changes with every install, so a rewrite made under the old schema is not stored.
        var generation = 0
        /// nil for a document sent as the client wrote it (nothing missing, or not rewritable).
        var texts: [SHA256Digest: String?] = [:]
        /// UTF-8 bytes of the rewritten texts held.
        var bytes = 0
    }

    /// Documents whose upstream text is remembered; beyond it the memory starts again empty.
    package let capacity: Int
    /// Bytes of rewritten text remembered; beyond it the memory starts again empty.
    package let maxBytes: Int
    private let state = Mutex(State())

    package init(capacity: Int = 10_000, maxBytes: Int = 16 << 20) {
        precondition(capacity > 0, "a rewrite cache holds at least one document")
        self.capacity = capacity
        self.maxBytes = maxBytes
    }

    /// Uses `schema` from now on (nil: none known, documents go as sent), with the key fields per
    /// type (`cache.types.<T>.keys`); forgets every rewrite made before.
    package func install(_ schema: KnownSchema?, keys: [String: [String]]) {
        state.withLock { state in
            state.rewriter = schema.map { DocumentRewriter(schema: $0, keys: keys) }
            state.generation &+= 1
            state.texts.removeAll()
            state.bytes = 0
        }
    }

    /// The schema in use, if any.
    package var schema: KnownSchema? { state.withLock { $0.rewriter?.schema } }

    /// The key fields in use per type.
    package var keys: [String: [String]] { state.withLock { $0.rewriter?.keys ?? [:] } }

    /// The text to send upstream instead of `text` (whose SHA-256 is `digest`), or nil to send it
    /// as it is: no schema known, nothing missing, or a document the rewriter must not touch.
    package func upstreamText(for digest: SHA256Digest, text: String) -> String? {
        let (rewriter, generation, known) = state.withLock { ($0.rewriter, $0.generation, $0.texts[digest]) }
        guard let rewriter else { return nil }
        if let known { return known }
        let rewritten = rewriter.rewrite(text).flatMap { $0 == text ? nil : $0 }
        state.withLock { state in
            guard state.generation == generation else { return }
            let size = rewritten?.utf8.count ?? 0
            if state.texts.count >= capacity || state.bytes + size > maxBytes {
                state.texts.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            state.texts[digest] = .some(rewritten)
            state.bytes += size
        }
        return rewritten
    }
}
