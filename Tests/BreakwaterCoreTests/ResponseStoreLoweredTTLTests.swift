// ResponseStore.lowerTTLs, on a manual clock: a reload's shorter TTL ends stored entries'
// freshness as if they had been stored under it (stale at once when already older, then the stale
// windows as usual), keeps their place and soft-purge marks, and loses to a purge that comes while
// it runs.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct ResponseStoreLoweredTTLTests {
    static let start = StoreFixture.start

    @Test func anEntryOlderThanTheNewTTLTurnsStaleAtOnceAndExpiresOnTheStaleWindows() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(300)), now: Self.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(2), ttl: .seconds(300), operationName: "Other"), now: Self.start)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .seconds(3))) == "fresh")

        let lowered = store.lowerTTLs { $0.operationName == "GetLaunches" ? .seconds(1) : nil }
        #expect(lowered == 1)
        // Stored 3 s ago under a TTL of 1 s: stale now, within stale_while_revalidate (10 s) after
        // its new TTL ended, then within stale_if_error only, then gone.
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .seconds(3))) == "stale")
        #expect(
            StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .milliseconds(10_999))) == "stale")
        #expect(
            StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .seconds(11))) == "staleIfErrorOnly")
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .seconds(301))) == "miss")
        // The other operation's entry keeps its TTL.
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(2), now: Self.start + .seconds(299))) == "fresh")
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func aYoungEntryStaysFreshUntilItsNewTTLEnds() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(300)), now: Self.start)
        store.lowerTTLs { _ in .seconds(60) }
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .milliseconds(59_999))) == "fresh")
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start + .seconds(60))) == "stale")
        guard case .fresh(let entry, _) = store.lookup(StoreFixture.key(1), now: Self.start) else {
            Issue.record("expected a fresh entry")
            return
        }
        #expect(entry.ttl == .seconds(60))
    }

    /// The copy takes the entry's place: bytes, count and tags stay as they were, and a soft purge
    /// made before keeps the copy stale.
    @Test func theCopyKeepsThePlaceTheBytesAndASoftPurge() {
        let store = ResponseStore(maxBytes: 1 << 20)
        for number in 1...20 {
            store.store(
                StoreFixture.entry(key: StoreFixture.key(number), ttl: .seconds(300), tags: ["Launch", "Launch:\(number)"]),
                now: Self.start)
        }
        store.purge(.tag("Launch:7"), soft: true, now: Self.start + .seconds(1))
        let before = store.statistics
        #expect(store.lowerTTLs { _ in .seconds(100) } == 20)
        let after = store.statistics
        #expect(after.entries == before.entries && after.bytes == before.bytes)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(7), now: Self.start + .seconds(2))) == "stale")
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(8), now: Self.start + .seconds(2))) == "fresh")
        #expect(store.purge(.tag("Launch"), soft: false, now: Self.start + .seconds(3)) == 20)
        #expect(store.statistics.entries == 0)
        #expect(store.consistencyProblems().isEmpty)
    }

    /// An entry purged, or replaced by a newer answer, after the pass listed it is not brought
    /// back by the copy made meanwhile.
    @Test func aPurgeOrANewerAnswerDuringThePassWins() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(300)), now: Self.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(2), ttl: .seconds(300)), now: Self.start)
        let newer = StoreFixture.entry(key: StoreFixture.key(2), storedAt: Self.start + .seconds(1), ttl: .seconds(5))
        let lowered = store.lowerTTLs { entry in
            // Runs outside the shard's lock, between the listing and the replacing.
            if entry.key == StoreFixture.key(1) { store.remove(entry.key) }
            if entry.key == StoreFixture.key(2) { store.store(newer, now: Self.start + .seconds(1)) }
            return .seconds(1)
        }
        #expect(lowered == 0)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: Self.start)) == "miss")
        #expect(store.lookup(StoreFixture.key(2), now: Self.start + .seconds(2)).entry === newer)
        #expect(store.consistencyProblems().isEmpty)
    }

    /// Every shard is visited, a few entries at a time.
    @Test func everyShardAndBatchIsVisited() {
        let store = ResponseStore(maxBytes: 64 << 20, shardCount: 4)
        for number in 1...500 {
            store.store(StoreFixture.entry(key: StoreFixture.key(number), ttl: .seconds(300)), now: Self.start)
        }
        #expect(store.lowerTTLs { _ in .seconds(2) } == 500)
        #expect(store.lowerTTLs { $0.ttl > .seconds(2) ? .seconds(2) : nil } == 0)
        for number in 1...500 {
            #expect(store.lookup(StoreFixture.key(number), now: Self.start).entry?.ttl == .seconds(2))
        }
    }
}
