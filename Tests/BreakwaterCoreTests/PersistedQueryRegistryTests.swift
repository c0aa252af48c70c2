// PersistedQueryRegistry: the bound, pinned manifest entries, id forms, modes, restarts through
// the store, and exact counts under concurrent registration.

import BreakwaterCore
import Foundation
import Testing
import BreakwaterFixtures

struct PersistedQueryRegistryTests {
    static let hasher = SoftwareSHA256()

    static func document(_ number: Int) -> String { "query Q\(number) { field\(number) }" }
    static func digest(_ number: Int) -> SHA256Digest { hasher.sha256(document(number)) }

    @discardableResult
    static func register(_ number: Int, in registry: PersistedQueryRegistry) -> Bool {
        registry.register(digest(number), document: document(number))
    }

    static func registry(
        maxEntries: Int,
        store: PersistedQueryStore? = nil,
        manifest: PersistedQueryManifest? = nil,
        mode: Configuration.PersistedQueryMode = .automatic
    ) throws -> PersistedQueryRegistry {
        try PersistedQueryRegistry(maxEntries: maxEntries, store: store, manifest: manifest, hasher: hasher, mode: mode)
    }

    /// A Relay map of documents 1000, 1001 and 1002, under ids "m0", "m1", "m2".
    static func manifest() throws -> PersistedQueryManifest {
        let members = (0..<3).map { "\"m\($0)\": \"\(document(1000 + $0))\"" }.joined(separator: ",")
        return try PersistedQueryManifest(json: Array("{\(members)}".utf8), file: "relay.json", hasher: hasher)
    }

    @Test func registerReturnsWhetherTheDocumentWasNew() throws {
        let registry = try Self.registry(maxEntries: 10)
        #expect(registry.document(for: Self.digest(1)) == nil)
        #expect(Self.register(1, in: registry))
        #expect(!Self.register(1, in: registry))
        #expect(registry.document(for: Self.digest(1)) == Self.document(1))
        #expect(registry.entries == 1)
        #expect(registry.registered == 1)
    }

    @Test func boundKeepsMaxEntriesAndEvictsLeastRecentlyUsed() throws {
        let registry = try Self.registry(maxEntries: 50)
        for number in 0..<50 { Self.register(number, in: registry) }
        // A lookup makes document 0 recently used: documents 1...10 are now the oldest.
        #expect(registry.document(for: Self.digest(0)) == Self.document(0))
        for number in 50..<60 { Self.register(number, in: registry) }

        #expect(registry.entries == 50)
        #expect(registry.registered == 60)
        #expect(registry.document(for: Self.digest(0)) == Self.document(0))
        for number in 1...10 { #expect(registry.document(for: Self.digest(number)) == nil, "document \(number)") }
        for number in 11..<60 { #expect(registry.document(for: Self.digest(number)) == Self.document(number)) }
    }

    @Test func pinnedManifestEntriesSurviveEviction() throws {
        let registry = try Self.registry(maxEntries: 5, manifest: Self.manifest())
        for number in 0..<100 { Self.register(number, in: registry) }
        for number in 1000..<1003 { #expect(registry.document(for: Self.digest(number)) == Self.document(number)) }
        #expect(registry.entries == 3 + 5)
        #expect(!Self.register(1000, in: registry), "a manifest document is never registered again")
        #expect(registry.registered == 100)
    }

    @Test func documentIDFormsFindRegisteredAndManifestDocuments() throws {
        let registry = try Self.registry(maxEntries: 10, manifest: Self.manifest())
        Self.register(1, in: registry)
        #expect(registry.document(forID: "sha256:" + Self.digest(1).hex) == Self.document(1))
        #expect(registry.document(forID: "sha256:" + Self.digest(1).hex.uppercased()) == Self.document(1))
        #expect(registry.document(forID: "sha256:" + Self.digest(1001).hex) == Self.document(1001))
        #expect(registry.document(forID: "m2") == Self.document(1002))
        #expect(registry.document(forID: "m3") == nil)
        #expect(registry.document(forID: "sha256:" + Self.digest(2).hex) == nil)
        #expect(registry.document(forID: "sha256:not-hex") == nil)
        #expect(registry.document(forID: Self.digest(1).hex) == nil, "a bare hex id is a manifest id")
    }

    @Test func safelistModeServesOnlyTheManifestAndNeverRegisters() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let earlier = try Self.registry(maxEntries: 10, store: PersistedQueryStore(path: path))
            Self.register(1, in: earlier)
            earlier.flush()
            let storedBytes = PersistedQueryFixtures.bytes(of: path)

            let registry = try Self.registry(
                maxEntries: 10, store: PersistedQueryStore(path: path), manifest: Self.manifest(), mode: .safelist)
            #expect(registry.document(for: Self.digest(1)) == nil)
            #expect(!Self.register(2, in: registry))
            #expect(registry.document(for: Self.digest(2)) == nil)
            #expect(registry.document(for: Self.digest(1000)) == Self.document(1000))
            #expect(registry.isSafelisted(Self.digest(1000)))
            #expect(!registry.isSafelisted(Self.digest(1)))
            #expect(registry.entries == 3)
            #expect(PersistedQueryFixtures.bytes(of: path) == storedBytes)
        }
    }

    @Test func withoutManifestNothingIsSafelisted() throws {
        let registry = try Self.registry(maxEntries: 10)
        Self.register(1, in: registry)
        #expect(!registry.isSafelisted(Self.digest(1)))
    }

    @Test func registrationsSurviveRestartAndTheMostRecentWin() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let first = try Self.registry(maxEntries: 10, store: PersistedQueryStore(path: path))
            for number in 0..<5 { Self.register(number, in: first) }
            first.flush()

            let restarted = try Self.registry(maxEntries: 3, store: PersistedQueryStore(path: path))
            #expect(restarted.entries == 3)
            #expect(restarted.registered == 0)
            for number in 0..<2 { #expect(restarted.document(for: Self.digest(number)) == nil) }
            // The file's order is the recency order: document 2 is the oldest and goes first.
            Self.register(5, in: restarted)
            #expect(restarted.document(for: Self.digest(2)) == nil)
            for number in 3..<6 { #expect(restarted.document(for: Self.digest(number)) == Self.document(number)) }
        }
    }

    @Test func storeBeyondTwiceTheBoundIsCompactedToIt() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let first = try Self.registry(maxEntries: 100, store: PersistedQueryStore(path: path))
            for number in 0..<10 { Self.register(number, in: first) }
            first.flush()

            _ = try Self.registry(maxEntries: 3, store: PersistedQueryStore(path: path))
            let records = try PersistedQueryStore(path: path).load()
            #expect(records.map(\.1) == (7..<10).map(Self.document))
        }
    }

    @Test func storeWithinTwiceTheBoundIsLeftAsItIs() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let first = try Self.registry(maxEntries: 100, store: PersistedQueryStore(path: path))
            for number in 0..<6 { Self.register(number, in: first) }
            first.flush()

            _ = try Self.registry(maxEntries: 3, store: PersistedQueryStore(path: path))
            #expect(try PersistedQueryStore(path: path).load().count == 6)
        }
    }

    /// A damaged file must never serve one query under another's hash.
    @Test func storedRecordWhoseDocumentDoesNotMatchItsHashIsDropped() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            try store.append(Self.digest(1), Self.document(1))
            try store.append(Self.digest(2), Self.document(666))

            let registry = try Self.registry(maxEntries: 10, store: PersistedQueryStore(path: path))
            #expect(registry.document(for: Self.digest(1)) == Self.document(1))
            #expect(registry.document(for: Self.digest(2)) == nil)
            #expect(try PersistedQueryStore(path: path).load().map(\.1) == [Self.document(1)])
        }
    }

    @Test func concurrentRegistrationsFromFourThreadsKeepCountsExact() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let registry = try Self.registry(maxEntries: 10_000, store: PersistedQueryStore(path: path))
            // Thread t registers 1000·t ..< 1000·t + 2000: each range overlaps the next one's.
            Self.onFourThreads { thread in
                for number in (1000 * thread)..<(1000 * thread + 2000) {
                    Self.register(number, in: registry)
                    _ = registry.document(for: Self.digest(number - 500))
                }
            }
            #expect(registry.registered == 5000)
            #expect(registry.entries == 5000)
            registry.flush()
            let records = try PersistedQueryStore(path: path).load()
            #expect(records.count == 5000)
            #expect(Set(records.map(\.0)).count == 5000)
        }
    }

    @Test func concurrentRegistrationsBeyondTheBoundKeepItExact() throws {
        let registry = try Self.registry(maxEntries: 100)
        Self.onFourThreads { thread in
            for number in (10_000 * thread)..<(10_000 * thread + 1000) { Self.register(number, in: registry) }
        }
        #expect(registry.registered == 4000)
        #expect(registry.entries == 100)
    }

    /// Runs `body(0...3)` on four threads at once and waits for all of them.
    static func onFourThreads(_ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for thread in 0..<4 {
            group.enter()
            Thread {
                body(thread)
                group.leave()
            }.start()
        }
        group.wait()
    }
}
