// The persisted-query registry (SPEC sections 2 and 3): the documents Breakwater knows by hash,
// shared by every event loop. Registrations made through APQ live in a bounded LRU and are
// appended to the store so they survive a restart; a manifest's documents are pinned beside them.

import Dispatch
import Logging
import Synchronization

/// The documents known by SHA-256 and by manifest id: a manifest's (pinned, never evicted) and,
/// in `automatic` mode, those clients registered (least recently used evicted beyond `maxEntries`).
///
/// Thread-safe. Manifest lookups take no lock; the LRU sits behind a mutex held only for a
/// dictionary operation, and the store is written behind the caller's back, on a queue of its
/// own, so that an event loop never waits for the disk.
package final class PersistedQueryRegistry: Sendable {
    private struct State {
        var documents: LRUCache<SHA256Digest, String>
        var registered = 0
        var persistFailures = 0
    }

    package let mode: Configuration.PersistedQueryMode
    /// The bound on the registered documents' summed UTF-8 size (`persisted_queries.max_bytes`).
    package let maxBytes: Int
    private let manifest: PersistedQueryManifest?
    private let store: PersistedQueryStore?
    private let state: Mutex<State>
    private let logger: Logger
    /// Appends registrations to the store in order, off the event loops (write-behind).
    private let writer = DispatchQueue(label: "breakwater.persisted-queries.writer")

    /// Loads the manifest's documents and, in `automatic` mode, the store's most recent
    /// `maxEntries` registrations, compacting the store when it holds more than twice that.
    ///
    /// In `safelist` mode the manifest is the only source: the store is neither read nor written.
    /// Stored records whose document does not hash to their digest are dropped, so that a damaged
    /// file can never serve one query in place of another.
    package init(
        maxEntries: Int,
        maxBytes: Int = .max,
        store: PersistedQueryStore?,
        manifest: PersistedQueryManifest?,
        hasher: any SHA256Hashing,
        mode: Configuration.PersistedQueryMode = .automatic,
        logger: Logger = Logger(label: "breakwater.persisted-queries")
    ) throws(PersistedQueryStoreError) {
        self.mode = mode
        self.maxBytes = maxBytes
        self.manifest = manifest
        self.store = mode == .automatic ? store : nil
        self.logger = logger
        var documents = LRUCache<SHA256Digest, String>(capacity: max(1, maxEntries), maxCost: maxBytes)
        if let store = self.store {
            try Self.preload(&documents, from: store, manifest: manifest, hasher: hasher, logger: logger)
        }
        state = Mutex(State(documents: documents))
    }

    /// Documents known: the manifest's plus the registered ones held now.
    package var entries: Int {
        (manifest?.digests.count ?? 0) + state.withLock { $0.documents.count }
    }

    /// New registrations since start.
    package var registered: Int { state.withLock { $0.registered } }

    /// Registrations the store failed to persist (they stay served from memory).
    package var persistFailures: Int { state.withLock { $0.persistFailures } }

    /// The document whose SHA-256 is `digest`; a registered one becomes the most recently used.
    package func document(for digest: SHA256Digest) -> String? {
        if let pinned = manifest?.document(for: digest) { return pinned }
        guard mode == .automatic else { return nil }
        return state.withLock { $0.documents.get(digest) }
    }

    /// The document named by a `documentId` (`"sha256:<hex>"`) or a Relay `doc_id`.
    package func document(forID id: String) -> String? {
        if id.hasPrefix("sha256:"), let digest = SHA256Digest(hex: id.dropFirst(7)),
            let document = document(for: digest)
        {
            return document
        }
        return manifest?.document(for: id)
    }

    /// Adds a document whose hash the caller has verified; returns whether it was new.
    ///
    /// A new document is served at once and appended to the store on the writer queue. If that
    /// fails it is still served from memory, counted in `persistFailures` and logged: a full disk
    /// must not fail the request.
    @discardableResult
    package func register(_ digest: SHA256Digest, document: String) -> Bool {
        guard mode == .automatic, manifest?.document(for: digest) == nil else { return false }
        // The evicted document is returned out of the lock so that it is freed after the unlock.
        let (isNew, _) = state.withLock { state -> (Bool, [(key: SHA256Digest, value: String)]) in
            guard state.documents.get(digest) == nil else { return (false, []) }
            state.registered += 1
            return (true, state.documents.insert(digest, document, cost: document.utf8.count))
        }
        // A document larger than the whole byte bound is served once and neither kept nor stored.
        guard isNew, let store, document.utf8.count <= maxBytes else { return isNew }
        writer.async { [self] in
            do {
                try store.append(digest, document)
            } catch {
                state.withLock { $0.persistFailures += 1 }
                logger.warning(
                    "cannot persist a registered query; it is served from memory until restart",
                    metadata: ["apq.hash": "\(digest.hex)", "error": "\(error)"]
                )
            }
        }
        return true
    }

    /// Waits until every registration made so far is in the store (at shutdown, and in tests).
    package func flush() {
        writer.sync {}
    }

    /// Whether the manifest lists `digest`, the SHA-256 of a document's text (or an Apollo id):
    /// in `safelist` mode the only documents allowed.
    package func isSafelisted(_ digest: SHA256Digest) -> Bool {
        manifest?.document(for: digest) != nil
    }

    // MARK: - Startup

    /// Fills `documents` with the store's most recent records, newest last so they are the most
    /// recently used, and compacts the store when it has grown past twice the bound.
    private static func preload(
        _ documents: inout LRUCache<SHA256Digest, String>,
        from store: PersistedQueryStore,
        manifest: PersistedQueryManifest?,
        hasher: any SHA256Hashing,
        logger: Logger
    ) throws(PersistedQueryStoreError) {
        let records = try store.load()
        var kept: [(SHA256Digest, String)] = []
        var seen = Set<SHA256Digest>()
        var corrupt = 0
        // Newest first: the most recent record of a digest wins, and hashing stops at the bound.
        for (digest, document) in records.reversed() {
            guard kept.count < documents.capacity else { break }
            guard !seen.contains(digest), manifest?.document(for: digest) == nil else { continue }
            guard hasher.sha256(document) == digest else {
                corrupt += 1
                continue
            }
            seen.insert(digest)
            kept.append((digest, document))
        }
        for (digest, document) in kept.reversed() {
            documents.insert(digest, document, cost: document.utf8.count)
        }
        if store.droppedBytes > 0 {
            logger.warning(
                "persisted-query store had damaged records or a torn tail; skipped them and kept the rest",
                metadata: [
                    "store.path": "\(store.path)", "store.dropped_bytes": .stringConvertible(store.droppedBytes),
                    "store.skipped_records": .stringConvertible(store.skippedRecords),
                ]
            )
        }
        if corrupt > 0 {
            logger.warning(
                "persisted-query store held records whose document does not match their hash; dropped them",
                metadata: ["store.path": "\(store.path)", "store.corrupt_records": .stringConvertible(corrupt)]
            )
        }
        if records.count > 2 * documents.capacity || corrupt > 0 || store.skippedRecords > 0 {
            try store.compact(documents.leastRecentFirst.map { ($0.key, $0.value) })
        }
        logger.debug(
            "persisted-query store loaded",
            metadata: [
                "store.path": "\(store.path)", "store.records": .stringConvertible(records.count),
                "apq.entries": .stringConvertible(kept.count),
            ]
        )
    }
}
