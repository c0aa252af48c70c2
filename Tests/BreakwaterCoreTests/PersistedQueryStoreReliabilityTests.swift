// The registry store against damage and mistakes (README "Configuration"): a damaged
// record is skipped and the records after it kept, a file that is not a store is refused and left
// untouched, and a store of the first format (no header) still loads and is migrated at start.

import BreakwaterCore
import Foundation
import Testing
import BreakwaterFixtures

struct PersistedQueryStoreReliabilityTests {
    private static let records = PersistedQueryStoreTests.sampleRecords

    /// A store holding `records`, its bytes, and where each record starts.
    private static func writtenStore(in folder: String) throws -> (path: String, bytes: [UInt8], starts: [Int]) {
        let path = folder + "/store.log"
        let store = try PersistedQueryStore(path: path)
        _ = try store.load()
        var starts: [Int] = []
        for (digest, document) in records {
            starts.append(PersistedQueryFixtures.bytes(of: path).count)
            try store.append(digest, document)
        }
        return (path, PersistedQueryFixtures.bytes(of: path), starts)
    }

    /// The probe's case: one non-hex byte inside a record's digest used to cut every later record.
    @Test func nonHexByteInTheMiddleLosesOneRecordOnly() throws {
        try PersistedQueryFixtures.withFolder { folder in
            var (path, bytes, starts) = try Self.writtenStore(in: folder)
            bytes[starts[1] + 10] = UInt8(ascii: "g")
            PersistedQueryFixtures.write(bytes, to: path)

            let store = try PersistedQueryStore(path: path)
            let loaded = try store.load()
            #expect(loaded.map(\.1) == [Self.records[0]] .map(\.1) + Self.records[2...].map(\.1))
            #expect(store.skippedRecords == 1)
            #expect(store.droppedBytes == starts[2] - starts[1])
            // Nothing good was cut off, and appends still follow.
            #expect(PersistedQueryFixtures.bytes(of: path) == bytes)
            try store.append(PersistedQueryFixtures.digest(77), "query After { a }")
            #expect(try PersistedQueryStore(path: path).load().last?.1 == "query After { a }")
        }
    }

    /// Every byte of a middle record damaged in turn (0xFF: not hex, not a digit, not a newline,
    /// not UTF-8): that record is lost and every other one is kept.
    @Test func anyDamagedByteOfAMiddleRecordLosesThatRecordOnly() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let (path, bytes, starts) = try Self.writtenStore(in: folder)
            let expected = Self.records.enumerated().filter { $0.offset != 3 }.map(\.element.1)
            for offset in starts[3]..<starts[4] {
                var damaged = bytes
                damaged[offset] = 0xFF
                PersistedQueryFixtures.write(damaged, to: path)
                let store = try PersistedQueryStore(path: path)
                #expect(try store.load().map(\.1) == expected, "damage at \(offset)")
                #expect(store.skippedRecords == 1, "damage at \(offset)")
            }
        }
    }

    @Test func damagedLengthSkipsTheRecordAndKeepsTheRest() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let (path, bytes, starts) = try Self.writtenStore(in: folder)
            let header = Array("\(Self.records[1].0.hex) ".utf8)
            // The length of record 1 (48 bytes) damaged to 9999: far past the file's end.
            var damaged = Array(bytes[..<starts[1]]) + header + Array("9999".utf8)
            damaged += bytes[(starts[1] + header.count + 2)...]
            PersistedQueryFixtures.write(damaged, to: path)
            let loaded = try PersistedQueryStore(path: path).load()
            #expect(loaded.map(\.1) == [Self.records[0].1] + Self.records[2...].map(\.1))
        }
    }

    @Test func newStoreStartsWithTheHeader() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            #expect(try store.load().isEmpty)
            #expect(PersistedQueryFixtures.bytes(of: path) == PersistedQueryStore.header)
        }
    }

    @Test func headerTornByACrashIsStartedAgain() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            PersistedQueryFixtures.write(Array(PersistedQueryStore.header.prefix(10)), to: path)
            let store = try PersistedQueryStore(path: path)
            #expect(try store.load().isEmpty)
            #expect(PersistedQueryFixtures.bytes(of: path) == PersistedQueryStore.header)
        }
    }

    static let foreignFiles: [(name: String, bytes: [UInt8])] = [
        ("text", Array("hello, world\nthis is a note someone keeps\n".utf8)),
        ("JSON", Array(#"{"a":1,"persisted":["x"]}"#.utf8)),
        ("YAML config", Array("server:\n  listen: 0.0.0.0:8080\n".utf8)),
        ("binary", (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) }),
        ("short hex", Array("abcdef\n".utf8)),
        ("another store's header", Array("breakwater persisted-query store 9\n".utf8)),
    ]

    /// A `store` path pointing at some other file: refused with a clear error, not a byte written.
    @Test(arguments: foreignFiles)
    func foreignFileIsRefusedAndLeftUntouched(name: String, contents: [UInt8]) throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/precious.txt"
            PersistedQueryFixtures.write(contents, to: path)
            let store = try PersistedQueryStore(path: path)
            let error = #expect(throws: PersistedQueryStoreError.self) { try store.load() }
            #expect(error == PersistedQueryStoreError.notAStore(path))
            #expect(error?.description.contains("is not a Breakwater persisted-query store") == true)
            #expect(PersistedQueryFixtures.bytes(of: path) == contents)
            // Nor can the registry on top of it write it.
            #expect(throws: PersistedQueryStoreError.self) {
                try PersistedQueryRegistry(
                    maxEntries: 10, store: PersistedQueryStore(path: path), manifest: nil, hasher: SoftwareSHA256())
            }
            #expect(PersistedQueryFixtures.bytes(of: path) == contents)
        }
    }

    /// A store written by the first format (records, no header) loads whole and is rewritten at
    /// start with the header in front; later appends follow.
    @Test func firstFormatStoreLoadsAndIsMigratedAtStart() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let (_, bytes, _) = try Self.writtenStore(in: folder)
            let oldFormat = Array(bytes.dropFirst(PersistedQueryStore.header.count))
            PersistedQueryFixtures.write(oldFormat, to: path)

            let store = try PersistedQueryStore(path: path)
            #expect(try store.load().map(\.1) == Self.records.map(\.1))
            #expect(PersistedQueryFixtures.bytes(of: path) == PersistedQueryStore.header + oldFormat)
            try store.append(PersistedQueryFixtures.digest(9), "query More { x }")
            #expect(try PersistedQueryStore(path: path).load().map(\.1) == Self.records.map(\.1) + ["query More { x }"])
            #expect(!FileManager.default.fileExists(atPath: path + ".compacting"))
        }
    }

    @Test func firstFormatStoreWithATornTailIsMigratedWithoutIt() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let (_, bytes, _) = try Self.writtenStore(in: folder)
            let oldFormat = Array(bytes.dropFirst(PersistedQueryStore.header.count))
            PersistedQueryFixtures.write(oldFormat.dropLast(3), to: path)
            let store = try PersistedQueryStore(path: path)
            #expect(try store.load().map(\.1) == Self.records.dropLast().map(\.1))
            #expect(store.droppedBytes > 0)
            #expect(PersistedQueryFixtures.bytes(of: path).starts(with: PersistedQueryStore.header))
        }
    }

    /// The registry rewrites a store with damaged records, so the damage is not met at every start.
    @Test func registryCompactsAStoreWithSkippedRecords() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let hasher = SoftwareSHA256()
            let documents = (0..<4).map { "query Q\($0) { launches { id } }" }
            do {
                let store = try PersistedQueryStore(path: path)
                _ = try store.load()
                for document in documents { try store.append(hasher.sha256(document), document) }
            }
            var bytes = PersistedQueryFixtures.bytes(of: path)
            let second = PersistedQueryStore.header.count + 64 + 4 + documents[0].utf8.count + 1
            bytes[second + 3] = UInt8(ascii: "Z")
            PersistedQueryFixtures.write(bytes, to: path)

            let registry = try PersistedQueryRegistry(
                maxEntries: 10, store: PersistedQueryStore(path: path), manifest: nil, hasher: hasher)
            #expect(registry.entries == 3)
            #expect(registry.document(for: hasher.sha256(documents[3])) == documents[3])
            let reopened = try PersistedQueryStore(path: path)
            #expect(try reopened.load().map(\.1) == [documents[0], documents[2], documents[3]])
            #expect(reopened.skippedRecords == 0)
        }
    }
}
