// PersistedQueryStore: the record format, restarts, torn and damaged tails, compaction, loading
// a chunk at a time, and the load time of a registry-sized file.

import BreakwaterCore
import Foundation
import Testing

struct PersistedQueryStoreTests {
    @Test func recordFormatIsHexLengthNewlineDocumentNewline() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            let digest = PersistedQueryFixtures.digest(1)
            try store.append(digest, "{__typename}")
            #expect(
                PersistedQueryFixtures.text(of: path)
                    == "breakwater persisted-query store 1\n\(digest.hex) 12\n{__typename}\n")
        }
    }

    @Test func appendedRecordsLoadBackInFileOrder() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let store = try PersistedQueryStore(path: folder + "/store.log")
            #expect(try store.load().isEmpty)
            let written = Self.sampleRecords
            for (digest, document) in written { try store.append(digest, document) }
            let loaded = try store.load()
            #expect(loaded.map(\.0) == written.map(\.0))
            #expect(loaded.map(\.1) == written.map(\.1))
            #expect(store.droppedBytes == 0)
        }
    }

    @Test func registrationsSurviveRestart() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            do {
                let store = try PersistedQueryStore(path: path)
                _ = try store.load()
                for (digest, document) in Self.sampleRecords { try store.append(digest, document) }
            }
            let reopened = try PersistedQueryStore(path: path)
            let loaded = try reopened.load()
            #expect(loaded.map(\.1) == Self.sampleRecords.map(\.1))
            try reopened.append(PersistedQueryFixtures.digest(99), "query Later { a }")
            #expect(try PersistedQueryStore(path: path).load().count == Self.sampleRecords.count + 1)
        }
    }

    @Test func missingFolderIsRefusedAndNotCreated() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/data/nested/store.log"
            let error = #expect(throws: PersistedQueryStoreError.self) { try PersistedQueryStore(path: path) }
            #expect(error?.description.contains("\(path): cannot open") == true)
            #expect(!FileManager.default.fileExists(atPath: folder + "/data"))
        }
    }

    @Test func unusableFolderIsReportedWithPath() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let blocker = folder + "/file"
            _ = FileManager.default.createFile(atPath: blocker, contents: Data())
            let error = #expect(throws: PersistedQueryStoreError.self) {
                try PersistedQueryStore(path: blocker + "/store.log")
            }
            #expect(error?.path == blocker + "/store.log")
            #expect(error?.description.contains("\(blocker)/store.log: cannot open") == true)
        }
    }

    /// A crash can stop a write anywhere in the last record: every cut keeps the records before
    /// it, trims the file back to them, and appends after it load.
    @Test func tornLastRecordAtEveryOffsetIsCutOffAndAppendsFollow() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let whole = folder + "/whole.log"
            let records = Self.sampleRecords
            let store = try PersistedQueryStore(path: whole)
            _ = try store.load()
            for (digest, document) in records { try store.append(digest, document) }
            let bytes = PersistedQueryFixtures.bytes(of: whole)
            let (lastDigest, lastDocument) = records.last!
            let lastRecord = "\(lastDigest.hex) \(lastDocument.utf8.count)\n\(lastDocument)\n"
            let lastStart = bytes.count - lastRecord.utf8.count

            for cut in lastStart..<bytes.count {
                let path = folder + "/cut-\(cut).log"
                PersistedQueryFixtures.write(Array(bytes[..<cut]), to: path)
                let torn = try PersistedQueryStore(path: path)
                let loaded = try torn.load()
                #expect(loaded.map(\.1) == records.dropLast().map(\.1), "cut at \(cut)")
                #expect(torn.droppedBytes == cut - lastStart, "cut at \(cut)")
                #expect(PersistedQueryFixtures.bytes(of: path).count == lastStart, "cut at \(cut)")

                try torn.append(PersistedQueryFixtures.digest(1000), "query After { b }")
                let reloaded = try PersistedQueryStore(path: path).load()
                #expect(reloaded.map(\.1) == records.dropLast().map(\.1) + ["query After { b }"], "cut at \(cut)")
            }
        }
    }

    /// Tails that are not a record: each is cut off and nothing before it is lost.
    static let garbageTails: [(name: String, bytes: [UInt8])] = {
        let hex = String(repeating: "ab", count: 32)
        let texts: [(String, String)] = [
            ("text", "hello, world\n"),
            ("upper-case hex", hex.uppercased() + " 3\nabc\n"),
            ("no space", hex + "3\nabc\n"),
            ("no length", hex + " \nabc\n"),
            ("length not decimal", hex + " 3x\nabc\n"),
            ("length longer than the file", hex + " 999999999999\nabc\n"),
            ("length too short", hex + " 2\nabc\n"),
            ("length of nineteen digits", hex + " 0000000000000000003\nabc\n"),
        ]
        return texts.map { ($0.0, Array($0.1.utf8)) } + [
            ("document not UTF-8", Array((hex + " 3\n").utf8) + [0xFF, 0xFE, 0x41, 0x0A]),
            ("zero bytes", [UInt8](repeating: 0, count: 200)),
        ]
    }()

    @Test(arguments: garbageTails)
    func garbageTailIsCutOff(name: String, garbage: [UInt8]) throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            for (digest, document) in Self.sampleRecords { try store.append(digest, document) }
            let good = PersistedQueryFixtures.bytes(of: path)
            PersistedQueryFixtures.write(good + garbage, to: path)

            let reopened = try PersistedQueryStore(path: path)
            #expect(try reopened.load().map(\.1) == Self.sampleRecords.map(\.1))
            #expect(reopened.droppedBytes == garbage.count)
            #expect(PersistedQueryFixtures.bytes(of: path) == good)
        }
    }

    @Test func compactionReplacesRecordsAndLaterAppendsFollow() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            for (digest, document) in Self.sampleRecords { try store.append(digest, document) }
            let survivors = Array(Self.sampleRecords.suffix(2))
            try store.compact(survivors)
            try store.append(PersistedQueryFixtures.digest(500), "query Next { c }")

            let loaded = try PersistedQueryStore(path: path).load()
            #expect(loaded.map(\.1) == survivors.map(\.1) + ["query Next { c }"])
            #expect(!FileManager.default.fileExists(atPath: path + ".compacting"))
        }
    }

    @Test func compactionToNothingLeavesAnEmptyFile() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            for (digest, document) in Self.sampleRecords { try store.append(digest, document) }
            try store.compact([])
            #expect(PersistedQueryFixtures.bytes(of: path) == PersistedQueryStore.header)
            #expect(try store.load().isEmpty)
        }
    }

    /// 100k registrations of about 1 KB. The time is printed for a person to read (a release build
    /// takes well under a second); only the count is asserted, never a timing.
    @Test func hundredThousandRecordsLoad() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            let padding = String(repeating: "field ", count: 165)
            let records = (0..<100_000).map { i in
                (PersistedQueryFixtures.digest(i), "query Q\(i) { \(padding) }")
            }
            try store.compact(records)

            let reopened = try PersistedQueryStore(path: path)
            let clock = ContinuousClock()
            var loaded: [(SHA256Digest, String)] = []
            let elapsed = try clock.measure { loaded = try reopened.load() }
            let megabytes = Double(PersistedQueryFixtures.bytes(of: path).count) / 1_048_576
            print("PersistedQueryStore: loaded \(loaded.count) records (\(Int(megabytes)) MiB) in \(elapsed)")
            #expect(loaded.count == 100_000)
            #expect(loaded.last?.1 == records.last?.1)
            #expect(reopened.droppedBytes == 0)
        }
    }

    // MARK: - Loading a chunk at a time

    /// Records of every size around the reader's 1 MiB chunk, and one of several chunks: each
    /// comes back whole, in order, wherever the chunk boundaries fall.
    @Test func recordsAcrossAndLargerThanAChunkLoadWhole() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            let sizes = [1, 700_000, 400_000, 1_048_576, 3, 2_500_000, 0, 1_048_400, 90_000]
            let records = sizes.enumerated().map { number, size in
                (
                    PersistedQueryFixtures.digest(number),
                    String(repeating: Character(Unicode.Scalar(97 + number % 26)!), count: size)
                )
            }
            for (digest, document) in records { try store.append(digest, document) }

            let reopened = try PersistedQueryStore(path: path)
            var loaded: [(SHA256Digest, String)] = []
            try reopened.load { loaded.append(($0, $1)) }
            #expect(loaded.map(\.0) == records.map(\.0))
            #expect(loaded.map(\.1) == records.map(\.1))
            #expect(reopened.droppedBytes == 0)
            #expect(reopened.records == records.count)
            #expect(reopened.size == PersistedQueryFixtures.bytes(of: path).count)
        }
    }

    /// A file of over 12 MiB is read through a buffer of one chunk (1 MiB), not into memory whole.
    @Test func largeFileIsReadThroughABufferOfOneChunk() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            let document = String(repeating: "z", count: 50_000)
            try store.compact((0..<260).map { (PersistedQueryFixtures.digest($0), document) })

            let reopened = try PersistedQueryStore(path: path)
            var count = 0
            try reopened.load { _, _ in count += 1 }
            #expect(count == 260)
            #expect(reopened.size > 12 << 20)
            #expect(reopened.loadBufferBytes == 1 << 20)
        }
    }

    /// Damage to a record that straddles a chunk boundary loses that record only.
    @Test func damageAcrossAChunkBoundaryLosesOneRecordOnly() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            let records = (0..<40).map {
                (PersistedQueryFixtures.digest($0), "query Q\($0) { " + String(repeating: "f ", count: 20_000) + "}")
            }
            var starts: [Int] = []
            for (digest, document) in records {
                starts.append(store.size)
                try store.append(digest, document)
            }
            // The record in which the file's first MiB ends, damaged in its digest.
            let straddling = try #require(starts.lastIndex { $0 < 1 << 20 })
            var bytes = PersistedQueryFixtures.bytes(of: path)
            bytes[starts[straddling] + 3] = UInt8(ascii: "X")
            PersistedQueryFixtures.write(bytes, to: path)

            let reopened = try PersistedQueryStore(path: path)
            let loaded = try reopened.load()
            #expect(loaded.map(\.0) == records.enumerated().filter { $0.offset != straddling }.map(\.element.0))
            #expect(reopened.skippedRecords == 1)
            #expect(reopened.records == records.count - 1)
        }
    }

    /// A document longer than the caller can hold is passed over unread, not taken for damage:
    /// the records after it load and nothing is cut off.
    @Test func documentLongerThanTheCallerCanHoldIsPassedOver() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let store = try PersistedQueryStore(path: path)
            _ = try store.load()
            let long = String(repeating: "y", count: 5_000)
            try store.append(PersistedQueryFixtures.digest(1), "{a}")
            try store.append(PersistedQueryFixtures.digest(2), long)
            try store.append(PersistedQueryFixtures.digest(3), "{b}")
            let bytes = PersistedQueryFixtures.bytes(of: path)

            let reopened = try PersistedQueryStore(path: path)
            var loaded: [String] = []
            try reopened.load(maxDocumentBytes: 4_096) { loaded.append($1) }
            #expect(loaded == ["{a}", "{b}"])
            #expect(reopened.droppedBytes == 0)
            #expect(reopened.skippedRecords == 0)
            #expect(reopened.records == 3)
            #expect(PersistedQueryFixtures.bytes(of: path) == bytes)
        }
    }

    /// Records with newlines, non-ASCII text and an empty document, which the length must frame.
    static let sampleRecords: [(SHA256Digest, String)] = [
        (PersistedQueryFixtures.digest(1), "{__typename}"),
        (PersistedQueryFixtures.digest(2), "query GetLaunches {\n  launches {\n    cursor\n  }\n}\n"),
        (PersistedQueryFixtures.digest(3), ""),
        (PersistedQueryFixtures.digest(4), "query Héllo { greeting(name: \"wörld ☃\") }"),
        (PersistedQueryFixtures.digest(5), "query Last { me { id } }"),
    ]
}

/// Temporary folders and file helpers shared by the persisted-query tests.
enum PersistedQueryFixtures {
    /// Runs `body` with a fresh empty folder that is removed afterwards.
    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "breakwater-pq-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    /// A distinct digest per number, for tests where the store need not see real hashes.
    static func digest(_ number: Int) -> SHA256Digest {
        var bytes = [UInt8](repeating: 0, count: 32)
        withUnsafeBytes(of: UInt64(number).bigEndian) { bytes.replaceSubrange(24..<32, with: $0) }
        return SHA256Digest(bytes: bytes)
    }

    static func bytes(of path: String) -> [UInt8] {
        FileManager.default.contents(atPath: path).map { Array($0) } ?? []
    }

    static func text(of path: String) -> String {
        String(decoding: bytes(of: path), as: UTF8.self)
    }

    static func write(_ bytes: [UInt8], to path: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}
