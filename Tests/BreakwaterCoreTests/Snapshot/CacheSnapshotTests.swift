// CacheSnapshot: what is written at stop and read back at start (docs/OPERATING.md, "The cache
// across restarts"): a round trip, damage skipped and counted, foreign files refused and never
// overwritten, expired and per-user entries never coming back, max_bytes keeping the most
// recently used, ages continuing over the downtime, and a failed write reported as an error.

import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Testing

struct CacheSnapshotTests {
    static let hasher = SoftwareSHA256()

    /// An entry stored at the clock's `now`, with a body of `size` bytes.
    static func entry(
        _ number: Int, clock: ManualClock, ttl: Duration = .seconds(60), isPerUser: Bool = false, size: Int = 100
    ) -> CacheEntry {
        let body = Array(#"{"data":{"n":\#(number)}}"#.utf8) + [UInt8](repeating: 0x20, count: max(0, size - 20))
        return CacheEntry.make(
            key: CacheKey(digest: hasher.sha256("key \(number)")), body: body, contentType: "application/json",
            etag: CacheEntry.makeETag(body: body, hasher: hasher), storedAt: clock.now,
            storedAtWallClock: clock.wallNow, ttl: ttl, staleWhileRevalidate: .seconds(10),
            staleIfError: .seconds(20), documentDigest: hasher.sha256("query { n }"), operationName: "N",
            tags: ["N:\(number)"], isPerUser: isPerUser)
    }

    static func isMiss(_ lookup: CacheLookup) -> Bool {
        if case .miss = lookup { true } else { false }
    }

    static func key(_ number: Int) -> CacheKey { CacheKey(digest: hasher.sha256("key \(number)")) }

    static func withFolder(_ body: (String) throws -> Void) throws {
        let folder = NSTemporaryDirectory() + "breakwater-snapshot-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    static func write(_ store: ResponseStore, _ path: String, _ clock: ManualClock) throws -> CacheSnapshotWrite {
        try CacheSnapshot.write(
            store, to: path, header: CacheSnapshotHeader(writtenAt: clock.wallNow), now: clock.now,
            wallNow: clock.wallNow)
    }

    static func load(_ path: String, into store: ResponseStore, _ clock: ManualClock) throws -> CacheSnapshotLoad {
        try #require(try CacheSnapshot.load(from: path, into: store, now: clock.now, wallNow: clock.wallNow))
    }

    @Test func roundTripBringsEverySharedEntryBack() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            for number in 0..<50 { store.store(Self.entry(number, clock: clock), now: clock.now) }
            let written = try Self.write(store, path, clock)
            #expect(written.entries == 50)
            // No temporary file is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["cache.snapshot"])
            let restarted = ResponseStore(maxBytes: 1 << 20)
            let loaded = try Self.load(path, into: restarted, clock)
            #expect(loaded.loaded == 50)
            #expect(loaded.skipped == 0)
            #expect(loaded.header.writtenAt == clock.wallNow)
            #expect(loaded.bytes == restarted.statistics.bytes)
            for number in 0..<50 {
                guard case .fresh(let entry, _) = restarted.lookup(Self.key(number), now: clock.now) else {
                    Issue.record("entry \(number) did not come back fresh")
                    continue
                }
                #expect(entry.body == Self.entry(number, clock: clock).body)
                #expect(entry.tags == ["N:\(number)"])
            }
            #expect(restarted.consistencyProblems().isEmpty)
            // Read once: a process that dies without writing a new one starts empty next time.
            #expect(!FileManager.default.fileExists(atPath: path))
            let again = try CacheSnapshot.load(from: path, into: restarted, now: clock.now, wallNow: clock.wallNow)
            #expect(again == nil)
        }
    }

    @Test func aDamagedRecordIsSkippedAndCountedAndTheRecordsAfterItLoad() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            for number in 0..<10 { store.store(Self.entry(number, clock: clock), now: clock.now) }
            _ = try Self.write(store, path, clock)
            var bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            // A byte flipped in the third record's payload, and the sixth record's length broken.
            let record = CacheSnapshotRecord.overhead + CacheEntryCodec.encode(Self.entry(0, clock: clock)).count
            let first = CacheSnapshotHeader.size
            bytes[first + 2 * record + 40] ^= 0xFF
            bytes[first + 5 * record + 6] ^= 0x7F
            // And a torn tail: half of a record after the last.
            bytes += bytes[first..<first + record / 2]
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let restarted = ResponseStore(maxBytes: 1 << 20)
            let loaded = try Self.load(path, into: restarted, clock)
            #expect(loaded.loaded == 8)
            #expect(loaded.skipped == 3)
        }
    }

    @Test(arguments: [
        Array("persisted queries, not a snapshot\n".utf8),
        CacheSnapshotHeader.magic + [2, 0] + [UInt8](repeating: 0, count: 38),
    ])
    func aFileThatIsNotASnapshotIsRefusedAndNeverOverwritten(contents: [UInt8]) throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            try Data(contents).write(to: URL(fileURLWithPath: path))
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            store.store(Self.entry(1, clock: clock), now: clock.now)
            #expect {
                _ = try CacheSnapshot.load(from: path, into: store, now: clock.now, wallNow: clock.wallNow)
            } throws: { ($0 as? CacheSnapshotError)?.isForeignFile == true }
            #expect {
                _ = try Self.write(store, path, clock)
            } throws: { ($0 as? CacheSnapshotError)?.isForeignFile == true }
            #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == contents)
            // Gone, the path is free again.
            try FileManager.default.removeItem(atPath: path)
            #expect(try Self.write(store, path, clock).entries == 1)
        }
    }

    @Test func noFileLoadsNothingAndIsNoError() throws {
        let clock = ManualClock()
        let loaded = try CacheSnapshot.load(
            from: "/nonexistent-breakwater/cache.snapshot", into: ResponseStore(maxBytes: 1 << 20), now: clock.now,
            wallNow: clock.wallNow)
        #expect(loaded == nil)
    }

    @Test func expiredEntriesAreNeitherWrittenNorLoaded() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            // Lifetime: TTL + the longer stale window (20 s).
            store.store(Self.entry(1, clock: clock, ttl: .seconds(5)), now: clock.now)
            store.store(Self.entry(2, clock: clock, ttl: .seconds(60)), now: clock.now)
            store.store(Self.entry(3, clock: clock, ttl: .seconds(600)), now: clock.now)
            clock.advance(by: .seconds(30))
            let written = try Self.write(store, path, clock)
            #expect(written.entries == 2)
            #expect(written.leftOut == 1)
            let file = try #require(FileManager.default.contents(atPath: path))
            // Down for a minute: entry 2 (lifetime 80 s, 90 s old) is past it, entry 3 is not.
            clock.advance(by: .seconds(60))
            let restarted = ResponseStore(maxBytes: 1 << 20)
            let loaded = try Self.load(path, into: restarted, clock)
            #expect(loaded.loaded == 1)
            #expect(loaded.expired == 1)
            #expect(Self.isMiss(restarted.lookup(Self.key(2), now: clock.now)))
            // A snapshot older than every entry's lifetime loads nothing.
            clock.advance(by: .seconds(1_000))
            try file.write(to: URL(fileURLWithPath: path))
            let later = ResponseStore(maxBytes: 1 << 20)
            let none = try Self.load(path, into: later, clock)
            #expect(none.loaded == 0)
            #expect(later.statistics.entries == 0)
        }
    }

    @Test func aFullMaxBytesStopsLoadingAndKeepsTheMostRecentlyUsed() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20, shardCount: 1)
            for number in 0..<20 { store.store(Self.entry(number, clock: clock, size: 1_000), now: clock.now) }
            // Used since: 3, 7 and 11 (visited); among the rest, the later stored the more recent.
            for number in [3, 7, 11] { _ = store.lookup(Self.key(number), now: clock.now) }
            _ = try Self.write(store, path, clock)
            let cost = Self.entry(0, clock: clock, size: 1_000).cost
            let small = ResponseStore(maxBytes: 5 * cost + cost / 2, shardCount: 1)
            let loaded = try Self.load(path, into: small, clock)
            #expect(loaded.loaded == 5)
            #expect(loaded.overBudget == 1)
            let kept = (0..<20).filter { !Self.isMiss(small.lookup(Self.key($0), now: clock.now)) }
            #expect(kept == [3, 7, 11, 18, 19])
            // The most recent are the newest in the queue: the next eviction takes the least recent.
            small.store(Self.entry(99, clock: clock, size: 1_000), now: clock.now)
            #expect(!Self.isMiss(small.lookup(Self.key(3), now: clock.now)))
            #expect(Self.isMiss(small.lookup(Self.key(18), now: clock.now)))
        }
    }

    @Test func perUserEntriesAreNeverWritten() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            store.store(Self.entry(1, clock: clock), now: clock.now)
            store.store(Self.entry(2, clock: clock, isPerUser: true), now: clock.now)
            let written = try Self.write(store, path, clock)
            #expect(written.entries == 1)
            let bytes = try #require(FileManager.default.contents(atPath: path)).map { $0 }
            let perUserBody = Self.entry(2, clock: clock).body
            #expect(!bytes.indices.contains { bytes[$0...].starts(with: perUserBody) })
            let restarted = ResponseStore(maxBytes: 1 << 20)
            #expect(try Self.load(path, into: restarted, clock).loaded == 1)
            #expect(Self.isMiss(restarted.lookup(Self.key(2), now: clock.now)))
        }
    }

    @Test func agesContinueOverTheDowntime() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            store.store(Self.entry(1, clock: clock, ttl: .seconds(60)), now: clock.now)
            clock.advance(by: .seconds(40))
            _ = try Self.write(store, path, clock)
            clock.advance(by: .seconds(15))  // down
            let restarted = ResponseStore(maxBytes: 1 << 20)
            _ = try Self.load(path, into: restarted, clock)
            guard case .fresh(_, let age) = restarted.lookup(Self.key(1), now: clock.now) else {
                Issue.record("not fresh after 55 s of 60")
                return
            }
            #expect(age == .seconds(55))
            clock.advance(by: .seconds(6))
            guard case .stale = restarted.lookup(Self.key(1), now: clock.now) else {
                Issue.record("still fresh at 61 s with a 60 s TTL")
                return
            }
        }
    }

    @Test func aSoftPurgedEntryComesBackStale() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            store.store(Self.entry(1, clock: clock, ttl: .seconds(600)), now: clock.now)
            clock.advance(by: .seconds(2))
            store.purge(.tag("N:1"), soft: true, now: clock.now)
            _ = try Self.write(store, path, clock)
            let restarted = ResponseStore(maxBytes: 1 << 20)
            _ = try Self.load(path, into: restarted, clock)
            guard case .stale = restarted.lookup(Self.key(1), now: clock.now) else {
                Issue.record("a soft-purged entry came back fresh")
                return
            }
        }
    }

    @Test(arguments: ["/proc/breakwater-no-such-folder/cache.snapshot", "/dev/null/cache.snapshot"])
    func anUnwritablePathIsAnErrorNotACrash(path: String) throws {
        let clock = ManualClock()
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(Self.entry(1, clock: clock), now: clock.now)
        #expect(throws: CacheSnapshotError.self) { _ = try Self.write(store, path, clock) }
    }

    @Test func aReadOnlyFolderIsAnError() throws {
        // Root ignores permission bits: a folder that is a file of a read-only filesystem then.
        let path = "/sys/breakwater-cache.snapshot"
        let clock = ManualClock()
        let store = ResponseStore(maxBytes: 1 << 20)
        #expect(throws: CacheSnapshotError.self) { _ = try Self.write(store, path, clock) }
    }

    @Test func aFleetSnapshotWithoutAPurgeLogPositionIsRefused() throws {
        try Self.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            store.store(Self.entry(1, clock: clock), now: clock.now)
            _ = try Self.write(store, path, clock)
            let restarted = ResponseStore(maxBytes: 1 << 20)
            let loaded = try #require(
                try CacheSnapshot.load(from: path, into: restarted, now: clock.now, wallNow: clock.wallNow) {
                    CacheSnapshot.fleetRefusal($0, purgeLogKept: true)
                })
            #expect(loaded.refusal != nil)
            #expect(loaded.loaded == 0)
            #expect(restarted.statistics.entries == 0)
            let positioned = CacheSnapshotHeader(
                writtenAt: clock.wallNow, purgeLogPosition: PurgeLogID(milliseconds: 17, sequence: 2), generation: 4)
            #expect(CacheSnapshot.fleetRefusal(positioned, purgeLogKept: true) == nil)
            #expect(CacheSnapshot.fleetRefusal(positioned, purgeLogKept: false) != nil)
            #expect(CacheSnapshotHeader(decoding: positioned.encoded) == positioned)
        }
    }

    @Test func crc32MatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
    }

    /// Eight bytes a step agrees with the definition, one bit at a time, at every length around
    /// the step and whatever the pieces the bytes are given in.
    @Test func crc32AgreesWithTheBitwiseDefinitionInPieces() {
        func bitwise(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        var random = SplitMix64(seed: 32)
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            #expect(CRC32.checksum(bytes) == bitwise(bytes), "length \(length)")
            let cut = length == 0 ? 0 : Int(random.next() % UInt64(length))
            var pieces = CRC32()
            pieces.update(bytes[..<cut])
            pieces.update(bytes[cut...])
            #expect(pieces.value == bitwise(bytes), "length \(length) cut at \(cut)")
        }
    }
}
