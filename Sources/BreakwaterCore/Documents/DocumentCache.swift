// Parsed documents by SHA-256, so that each distinct document is parsed once however many requests
// carry it: persisted queries make the same few documents arrive over and over.

import Synchronization

/// A bounded, thread-safe map from a document's SHA-256 to its analysis (or its syntax error).
///
/// A miss claims a slot under the cache lock and parses outside it, under the slot's own lock, so
/// lookups of other documents never wait for a parse, and concurrent misses of one document wait
/// for a single parse instead of repeating it. Errors are kept too: they depend only on the text,
/// which the digest names, and repeated garbage should not cost a parse each time. When full, the
/// oldest entry goes (FIFO).
package final class DocumentCache: Sendable {
    /// One document's outcome, filled in by whichever lookup gets to it first.
    private final class Slot: Sendable {
        let outcome = Mutex<Result<OperationAnalysis, DocumentError>?>(nil)
    }

    private struct State {
        var slots: [SHA256Digest: Slot] = [:]
        /// Digests in insertion order, a ring once full; `oldest` is the next to go.
        var order: [SHA256Digest] = []
        var oldest = 0
    }

    package let capacity: Int
    private let state = Mutex(State())
    private let parseCount = Atomic<Int>(0)

    package init(capacity: Int) {
        precondition(capacity > 0, "a document cache holds at least one document")
        self.capacity = capacity
    }

    /// The analysis of `document`, whose SHA-256 the caller has computed as `digest`; parsed on a miss.
    package func analysis(for digest: SHA256Digest, document: String) throws(DocumentError) -> OperationAnalysis {
        let slot = state.withLock { state in
            if let slot = state.slots[digest] { return slot }
            let slot = Slot()
            state.slots[digest] = slot
            if state.order.count < capacity {
                state.order.append(digest)
            } else {
                state.slots[state.order[state.oldest]] = nil
                state.order[state.oldest] = digest
                state.oldest = (state.oldest + 1) % capacity
            }
            return slot
        }
        let outcome = slot.outcome.withLock { outcome in
            if let outcome { return outcome }
            parseCount.add(1, ordering: .relaxed)
            let parsed = Result { () throws(DocumentError) in try OperationAnalysis(document: document) }
            outcome = parsed
            return parsed
        }
        return try outcome.get()
    }

    /// How many documents (or their errors) are held.
    package var count: Int { state.withLock { $0.slots.count } }

    /// How many times the parser has run, for tests and stats.
    package var parses: Int { parseCount.load(ordering: .relaxed) }
}
