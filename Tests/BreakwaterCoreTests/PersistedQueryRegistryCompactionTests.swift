// PersistedQueryRegistry and its store's bound on disk: compaction while running keeps exactly
// the live set in recency order, the file stays within about twice max_bytes while documents
// are registered and after a restart, and a file already past the bound is compacted at start.

import BreakwaterCore
import Foundation
import Testing
import BreakwaterFixtures

struct PersistedQueryRegistryCompactionTests {
    static let hasher = SoftwareSHA256()

    /// Documents of exactly `bytes` UTF-8 bytes, distinct by `number`.
    static func document(_ number: Int, bytes: Int = 5_000) -> String {
        let head = "query Large\(number) { launches { id } }\n#"
        return head + String(repeating: "x", count: bytes - head.utf8.count)
    }

    /// The number `document(_:bytes:)` made a document from (so that failures print numbers).
    static func number(of document: String) -> Int? {
        Int(document.dropFirst("query Large".count).prefix(while: \.isNumber))
    }

    static func registry(path: String, maxBytes: Int, maxEntries: Int = 10_000) throws -> PersistedQueryRegistry {
        try PersistedQueryRegistry(
            maxEntries: maxEntries, maxBytes: maxBytes, store: PersistedQueryStore(path: path), manifest: nil,
            hasher: hasher)
    }

    /// About twice max_bytes: twice the larger of max_bytes and the live set's size on disk (a
    /// document's record carries its hash and length too), plus the one record whose append
    /// crossed the limit.
    static func fileBound(maxBytes: Int, documentBytes: Int) -> Int {
        let record = PersistedQueryStore.recordSize(documentBytes: documentBytes)
        let liveSet = PersistedQueryStore.header.count + maxBytes / documentBytes * record
        return 2 * max(maxBytes, liveSet) + record
    }

    /// Each compaction leaves the file holding exactly the registry's documents, least recently
    /// used first, and not the file's last records: a document looked up stays, the one it
    /// outlived is gone.
    @Test func compactionWhileRunningKeepsExactlyTheLiveSetInRecencyOrder() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let maxBytes = 10 * 5_000
            let registry = try Self.registry(path: path, maxBytes: maxBytes)
            var live: [Int] = []  // least recently used first, as the registry should hold them
            var checked = 0
            for number in 0..<100 {
                if number % 7 == 6, let oldest = live.first {
                    // A lookup of the least recently used makes it the most recent.
                    #expect(registry.document(for: Self.hasher.sha256(Self.document(oldest))) == Self.document(oldest))
                    live.append(live.removeFirst())
                }
                let compactionsBefore = registry.compactions
                registry.register(Self.hasher.sha256(Self.document(number)), document: Self.document(number))
                live.append(number)
                if live.count > 10 { live.removeFirst() }
                registry.flush()
                guard registry.compactions > compactionsBefore else { continue }
                checked += 1
                let records = try PersistedQueryStore(path: path).load()
                #expect(records.map { Self.number(of: $0.1) } == live, "compaction after document \(number)")
                #expect(records.allSatisfy { Self.hasher.sha256($0.1) == $0.0 })
                #expect(
                    PersistedQueryFixtures.bytes(of: path).count
                        == PersistedQueryStore.header.count + 10 * PersistedQueryStore.recordSize(documentBytes: 5_000))
            }
            #expect(checked >= 3, "compactions seen: \(checked)")
            #expect(!FileManager.default.fileExists(atPath: path + ".compacting"))
        }
    }

    /// Many large documents registered at once from several threads (the write-behind queue
    /// compacts as it goes): the file stays within about twice max_bytes at every look, after a
    /// restart, and the restarted registry serves the most recent documents.
    @Test func fileStaysWithinTwiceMaxBytesWhileRunningAndAfterRestart() async throws {
        let folder = NSTemporaryDirectory() + "breakwater-pq-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/store.log"
        let maxBytes = 64 * 1024
        let bound = Self.fileBound(maxBytes: maxBytes, documentBytes: 5_000)
        let count = 1_200  // 6 MB of documents: 90 times max_bytes
        let registry = try Self.registry(path: path, maxBytes: maxBytes)
        await withTaskGroup(of: Void.self) { group in
            for lane in 0..<4 {
                group.addTask {
                    for number in stride(from: lane, to: count, by: 4) {
                        registry.register(Self.hasher.sha256(Self.document(number)), document: Self.document(number))
                    }
                }
            }
            group.addTask {
                // Looks at the file while the registrations go on.
                for _ in 0..<200 {
                    let size = PersistedQueryFixtures.bytes(of: path).count
                    #expect(size <= bound, "file of \(size) bytes, bound \(bound)")
                    await Task.yield()
                }
            }
        }
        registry.flush()
        let running = PersistedQueryFixtures.bytes(of: path).count
        #expect(running <= bound, "file of \(running) bytes, bound \(bound)")
        #expect(registry.compactions >= 30, "compactions: \(registry.compactions)")

        let restarted = try Self.registry(path: path, maxBytes: maxBytes)
        let afterRestart = PersistedQueryFixtures.bytes(of: path).count
        #expect(afterRestart <= bound, "file of \(afterRestart) bytes after restart, bound \(bound)")
        #expect(restarted.entries == maxBytes / 5_000)
        #expect(restarted.entries == registry.entries)
        print(
            "PersistedQueryRegistry: \(count) documents of 5,000 bytes, max_bytes \(maxBytes): file \(running) bytes running, \(afterRestart) after restart (bound \(bound))"
        )
    }

    /// Sequential registrations with the file looked at after each: never past the bound.
    @Test func fileNeverPassesTheBoundBetweenRegistrations() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let maxBytes = 32 * 1024
            let bound = Self.fileBound(maxBytes: maxBytes, documentBytes: 3_000)
            let registry = try Self.registry(path: path, maxBytes: maxBytes)
            var largest = 0
            for number in 0..<400 {
                registry.register(
                    Self.hasher.sha256(Self.document(number, bytes: 3_000)),
                    document: Self.document(number, bytes: 3_000))
                registry.flush()
                largest = max(largest, PersistedQueryFixtures.bytes(of: path).count)
            }
            #expect(largest <= bound, "largest file \(largest) bytes, bound \(bound)")
            #expect(largest > 2 * maxBytes - 3_000, "the file grows to the bound before it is compacted")
            let restarted = try Self.registry(path: path, maxBytes: maxBytes)
            for number in (400 - maxBytes / 3_000)..<400 {
                let document = Self.document(number, bytes: 3_000)
                #expect(restarted.document(for: Self.hasher.sha256(document)) == document, "document \(number)")
            }
        }
    }

    /// A file written before the bound existed, many times max_bytes: the start reads it, keeps the
    /// most recent documents within the bound and rewrites the file with them alone.
    @Test func fileAlreadyPastTheBoundIsCompactedAtStart() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            do {
                let store = try PersistedQueryStore(path: path)
                _ = try store.load()
                for number in 0..<600 {
                    try store.append(Self.hasher.sha256(Self.document(number)), Self.document(number))
                }
            }
            let before = PersistedQueryFixtures.bytes(of: path).count
            let maxBytes = 64 * 1024
            let registry = try Self.registry(path: path, maxBytes: maxBytes)
            let after = PersistedQueryFixtures.bytes(of: path).count
            #expect(registry.compactions == 1)
            #expect(after <= Self.fileBound(maxBytes: maxBytes, documentBytes: 5_000), "\(before) -> \(after) bytes")
            let kept = maxBytes / 5_000
            #expect(registry.entries == kept)
            let records = try PersistedQueryStore(path: path).load()
            #expect(records.map { Self.number(of: $0.1) } == Array(600 - kept..<600))
        }
    }

    /// A file within the bound is left as it is at start: no rewrite at every restart.
    @Test func fileWithinTheBoundIsNotRewrittenAtStart() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let maxBytes = 64 * 1024
            do {
                let store = try PersistedQueryStore(path: path)
                _ = try store.load()
                for number in 0..<20 {
                    try store.append(Self.hasher.sha256(Self.document(number)), Self.document(number))
                }
            }
            let before = PersistedQueryFixtures.bytes(of: path)
            let registry = try Self.registry(path: path, maxBytes: maxBytes)
            #expect(registry.compactions == 0)
            #expect(PersistedQueryFixtures.bytes(of: path) == before)
        }
    }
}
