// The schema the proxy currently knows and the text it sends upstream for each document
// (docs/SCHEMA.md): rewritten once per document hash, forgotten as a whole when a new schema arrives
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
        var texts: [SHA256Digest: UpstreamDocument] = [:]
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
        if case .rewritten(let rewritten) = upstreamDocument(for: digest, text: text) { return rewritten }
        return nil
    }

    /// What goes upstream for `text` (whose SHA-256 is `digest`), and whether the schema covers it.
    package func upstreamDocument(for digest: SHA256Digest, text: String) -> UpstreamDocument {
        let (rewriter, generation, known) = state.withLock { ($0.rewriter, $0.generation, $0.texts[digest]) }
        guard let rewriter else { return .unchecked }
        if let known { return known }
        let upstream: UpstreamDocument =
            switch rewriter.rewrite(text) {
            case nil: .unchecked
            case text?: .complete
            case let rewritten?: .rewritten(rewritten)
            }
        state.withLock { state in
            guard state.generation == generation else { return }
            let size = if case .rewritten(let rewritten) = upstream { rewritten.utf8.count } else { 0 }
            if state.texts.count >= capacity || state.bytes + size > maxBytes {
                state.texts.removeAll(keepingCapacity: true)
                state.bytes = 0
            }
            state.texts[digest] = upstream
            state.bytes += size
        }
        return upstream
    }
}

/// What goes upstream for one client document, and whether its answers show every type they hold.
package enum UpstreamDocument: Sendable, Equatable {
    /// Sent as written: the schema covers it and it already selects every `__typename` and key.
    case complete
    /// Sent with the reserved selections added: answers name every type, under reserved members.
    case rewritten(String)
    /// Sent as written, unchecked: no schema is known, or the rewriter cannot follow it (a type
    /// or field the schema lacks). Its answers' types are unseen.
    case unchecked

    /// Whether every object in an answer names its type (`__typename`, plain or reserved).
    package var showsTypes: Bool { self != .unchecked }
}
