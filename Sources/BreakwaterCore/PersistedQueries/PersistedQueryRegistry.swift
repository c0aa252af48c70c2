// The persisted-query registry (README.md, "Persisted queries"): the documents Breakwater knows by
// hash, shared by every event loop. Registrations made through APQ live in a bounded LRU and are
// appended to the store so they survive a restart; a manifest's documents are pinned beside them.

import Dispatch
import Logging
import Synchronization

/// The documents known by SHA-256 and by manifest id: a manifest's (pinned, never evicted) and,
/// in `automatic` mode, those clients registered (least recently used evicted beyond `maxEntries`).
///
/// Thread-safe. Manifest lookups take no lock; the LRU sits behind a mutex held only for a
/// dictionary operation, and the store is written behind the caller's back, on a queue of its
/// own, so that an event loop never waits for the disk. The same queue compacts the store when
/// the policy says it has grown past its bound, so the file stays within about twice `maxBytes`.
package final class PersistedQueryRegistry: Sendable {
    private struct State {
        var documents: LRUCache<SHA256Digest, String>
        var registered = 0
        var persistFailures = 0
        var compactions = 0
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
    /// When the store is next compacted; read and changed on the writer queue (and in `init`).
    private let compaction: Mutex<PersistedQueryStoreCompactionPolicy>

    /// Loads the manifest's documents and, in `automatic` mode, the store's most recent
    /// registrations within `maxEntries` and `maxBytes`, compacting the store when the policy
    /// finds it past its bound or damaged.
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
        var policy = PersistedQueryStoreCompactionPolicy(
            maxBytes: maxBytes, maxEntries: maxEntries, liveBytes: PersistedQueryStore.header.count)
        var compactions = 0
        if let store = self.store {
            let loaded = try Self.preload(&documents, from: store, manifest: manifest, hasher: hasher, logger: logger)
            policy = loaded.policy
            if loaded.compacted { compactions = 1 }
        }
        state = Mutex(State(documents: documents, compactions: compactions))
        compaction = Mutex(policy)
    }

    /// Documents known: the manifest's plus the registered ones held now.
    package var entries: Int {
        (manifest?.digests.count ?? 0) + state.withLock { $0.documents.count }
    }

    /// New registrations since start.
    package var registered: Int { state.withLock { $0.registered } }

    /// The digests of the documents registered here (the manifest's aside), most recently used
    /// first: what the fleet's registry write-back sends to a Redis that lost them.
    package var registeredDigests: [SHA256Digest] {
        state.withLock { $0.documents.leastRecentFirst.reversed().map(\.key) }
    }

    /// Registrations the store failed to persist (they stay served from memory).
    package var persistFailures: Int { state.withLock { $0.persistFailures } }

    /// Times the store was rewritten with the live set, at start and while running.
    package var compactions: Int { state.withLock { $0.compactions } }

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
                return
            }
            compactIfDue(store)
        }
        return true
    }

    /// Rewrites the store with the documents held now when the policy finds the file past its
    /// bound. Runs on the writer queue, so appends wait behind it and never interleave with it;
    /// the event loops only wait for the copy of the live set's references.
    private func compactIfDue(_ store: PersistedQueryStore) {
        let fileBytes = store.size
        guard compaction.withLock({ $0.isDue(fileBytes: fileBytes, records: store.records) }) else { return }
        // Registrations after this copy are appended after the compaction; those before it whose
        // append is still queued end up twice in the file, which loading resolves (the later wins).
        let live = state.withLock { $0.documents.leastRecentFirst }
        do {
            try store.compact(live.map { ($0.key, $0.value) })
            let compacted = store.size
            compaction.withLock { $0.compacted(fileBytes: compacted) }
            state.withLock { $0.compactions += 1 }
            logger.debug(
                "persisted-query store compacted",
                metadata: [
                    "store.path": "\(store.path)", "store.bytes_before": "\(fileBytes)",
                    "store.bytes": "\(compacted)", "apq.entries": "\(live.count)",
                ]
            )
        } catch {
            compaction.withLock { $0.failed(fileBytes: fileBytes) }
            logger.warning(
                "cannot compact the persisted-query store; it is tried again once the file has grown further",
                metadata: ["store.path": "\(store.path)", "error": "\(error)"]
            )
        }
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

    /// Fills `documents` with the store's records read in file order, the newest last so they are
    /// the most recently used (the LRU evicts the oldest beyond its bounds as it goes, so memory
    /// stays within them whatever the file's size), and compacts the store when the policy finds
    /// it past its bound or it held damage. Returns the policy for the file as it is left, and
    /// whether it was compacted.
    private static func preload(
        _ documents: inout LRUCache<SHA256Digest, String>,
        from store: PersistedQueryStore,
        manifest: PersistedQueryManifest?,
        hasher: any SHA256Hashing,
        logger: Logger
    ) throws(PersistedQueryStoreError) -> (policy: PersistedQueryStoreCompactionPolicy, compacted: Bool) {
        var corrupt = 0
        try store.load(maxDocumentBytes: documents.maxCost) { digest, document in
            guard manifest?.document(for: digest) == nil else { return }
            // A record whose document does not hash to its digest is dropped before it can evict
            // anything or replace an earlier good record of the same digest.
            guard hasher.sha256(document) == digest else {
                corrupt += 1
                return
            }
            documents.insert(digest, document, cost: document.utf8.count)
        }
        let live = documents.leastRecentFirst
        let liveBytes = live.reduce(PersistedQueryStore.header.count) {
            $0 + PersistedQueryStore.recordSize(documentBytes: $1.value.utf8.count)
        }
        var policy = PersistedQueryStoreCompactionPolicy(
            maxBytes: documents.maxCost, maxEntries: documents.capacity, liveBytes: liveBytes)
        let fileBytes = store.size
        let records = store.records
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
        let isDue = policy.isDue(fileBytes: fileBytes, records: records) || corrupt > 0 || store.skippedRecords > 0
        if isDue {
            try store.compact(live.map { ($0.key, $0.value) })
            policy.compacted(fileBytes: store.size)
        }
        logger.debug(
            "persisted-query store loaded",
            metadata: [
                "store.path": "\(store.path)", "store.records": .stringConvertible(records),
                "store.bytes": .stringConvertible(fileBytes), "store.bytes_now": .stringConvertible(store.size),
                "apq.entries": .stringConvertible(live.count),
            ]
        )
        return (policy, isDue)
    }
}
