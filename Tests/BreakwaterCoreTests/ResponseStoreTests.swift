// ResponseStore: freshness at the exact window boundaries, replacement, the entry bound, ETags and
// cost. Purges, churn and threads have their own files; `StoreFixture` below serves them all.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct ResponseStoreTests {
    /// An entry stored at `start` with TTL 30s and the given stale windows, looked up `offset` later.
    @Test(arguments: [
        (Duration.zero, Duration.seconds(10), Duration.seconds(300), "fresh"),
        (.milliseconds(29_999), .seconds(10), .seconds(300), "fresh"),
        (.seconds(30), .seconds(10), .seconds(300), "stale"),
        (.milliseconds(39_999), .seconds(10), .seconds(300), "stale"),
        (.seconds(40), .seconds(10), .seconds(300), "staleIfErrorOnly"),
        (.milliseconds(329_999), .seconds(10), .seconds(300), "staleIfErrorOnly"),
        (.seconds(330), .seconds(10), .seconds(300), "miss"),
        // A stale-while-revalidate window longer than stale-if-error covers it.
        (.milliseconds(89_999), .seconds(60), .seconds(10), "stale"),
        (.seconds(90), .seconds(60), .seconds(10), "miss"),
        // No stale windows: expired at the TTL itself.
        (.seconds(30), .zero, .zero, "miss"),
    ])
    func lookupClassifiesByAgeWithHalfOpenWindows(
        offset: Duration, staleWhileRevalidate: Duration, staleIfError: Duration, expected: String
    ) {
        let store = ResponseStore(maxBytes: 1 << 20)
        let entry = StoreFixture.entry(
            key: StoreFixture.key(1), ttl: .seconds(30), staleWhileRevalidate: staleWhileRevalidate,
            staleIfError: staleIfError
        )
        store.store(entry, now: StoreFixture.start)
        let lookup = store.lookup(StoreFixture.key(1), now: StoreFixture.start + offset)
        #expect(StoreFixture.kind(lookup) == expected)
        if expected == "miss" {
            #expect(store.statistics.expired == 1)
            #expect(store.statistics.entries == 0)
            #expect(store.statistics.bytes == 0)
        } else {
            #expect(lookup.entry === entry)
            #expect(store.statistics.expired == 0)
        }
    }

    @Test func ageIsTimeSinceStoredAndNeverNegative() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), storedAt: StoreFixture.start), now: StoreFixture.start)
        guard case .fresh(_, let age) = store.lookup(StoreFixture.key(1), now: StoreFixture.start + .seconds(7)) else {
            Issue.record("expected a fresh entry")
            return
        }
        #expect(age == .seconds(7))
        guard case .fresh(_, let early) = store.lookup(StoreFixture.key(1), now: StoreFixture.start - .seconds(1))
        else {
            Issue.record("expected a fresh entry")
            return
        }
        #expect(early == .zero)
    }

    @Test func expiredEntryIsGoneForLaterLookups() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(1)), now: StoreFixture.start)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start + .seconds(400))) == "miss")
        // Even a lookup "from the past" finds nothing: the entry was removed, not just hidden.
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start)) == "miss")
        #expect(store.statistics.expired == 1)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func replacingKeepsTheBoundAndTheIndexesRight() {
        let store = ResponseStore(maxBytes: 1 << 20, shardCount: 1)
        let old = StoreFixture.entry(
            key: StoreFixture.key(1), bodyBytes: 100, operationName: "Old", tags: ["Launch:1", "Launch"]
        )
        let new = StoreFixture.entry(
            key: StoreFixture.key(1), bodyBytes: 5_000, document: StoreFixture.otherDocument, operationName: "New",
            tags: ["Rocket:9", "Rocket"]
        )
        store.store(old, now: StoreFixture.start)
        store.store(new, now: StoreFixture.start)
        let statistics = store.statistics
        #expect(statistics.entries == 1)
        #expect(statistics.bytes == new.cost)
        #expect(store.lookup(StoreFixture.key(1), now: StoreFixture.start).entry === new)
        #expect(store.consistencyProblems().isEmpty)
        #expect(store.purge(.tag("Launch:1"), soft: false, now: StoreFixture.start) == 0)
        #expect(store.purge(.operation("Old"), soft: false, now: StoreFixture.start) == 0)
        #expect(store.purge(.document(StoreFixture.document), soft: false, now: StoreFixture.start) == 0)
        #expect(store.purge(.tag("Rocket"), soft: false, now: StoreFixture.start) == 1)
        #expect(store.statistics.bytes == 0)
    }

    @Test func entryCostlierThanAShardIsRejected() {
        let store = ResponseStore(maxBytes: 64 * 1024, shardCount: 4)
        #expect(store.maxEntryCost == 16 * 1024)
        let oversized = StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 16 * 1024)
        #expect(oversized.cost > store.maxEntryCost)
        #expect(store.store(oversized, now: StoreFixture.start) == 0)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start)) == "miss")
        let statistics = store.statistics
        #expect(statistics.rejected == 1)
        #expect(statistics.entries == 0)
        #expect(statistics.bytes == 0)
    }

    @Test func oversizedReplacementRemovesTheOldEntry() {
        let store = ResponseStore(maxBytes: 64 * 1024, shardCount: 1)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 100), now: StoreFixture.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 70_000), now: StoreFixture.start)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start)) == "miss")
        #expect(store.statistics.entries == 0)
        #expect(store.statistics.rejected == 1)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func removeDropsTheEntryAndItsIndexes() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), tags: ["Launch:1"]), now: StoreFixture.start)
        store.remove(StoreFixture.key(1))
        store.remove(StoreFixture.key(2))
        #expect(store.statistics.entries == 0)
        #expect(store.purge(.tag("Launch:1"), soft: false, now: StoreFixture.start) == 0)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func hitSharesTheStoredBody() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let entry = StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 1_000)
        store.store(entry, now: StoreFixture.start)
        let found = store.lookup(StoreFixture.key(1), now: StoreFixture.start).entry
        #expect(found === entry)
        #expect(found?.response.storageAddress == entry.response.storageAddress)
    }

    @Test func etagIsTheQuotedHexOfTheBodyDigestsFirst8Bytes() {
        // SHA-256("hello") = 2cf24dba5fb0a30e 26e83b2ac5b9e29e 1b161e5c1fa7425e 73043362938b9824
        let etag = CacheEntry.makeETag(body: Array("hello".utf8), hasher: SoftwareSHA256())
        #expect(etag == "\"2cf24dba5fb0a30e\"")
        #expect(CompactETag(quoted: etag) != nil)
    }

    @Test func costCountsOverheadDigestsStringsAndTags() {
        let entry = StoreFixture.entry(
            key: StoreFixture.key(1), bodyBytes: 1_000, operationName: "Op", tags: ["A:1", "A"])
        // No stored lines: ETag and Content-Length are written from the entry's fields.
        #expect(entry.response.bodyStart == 0)
        let tags = 3 + 1 + 2 * CacheEntry.perTagOverhead
        #expect(entry.cost == 1_000 + CacheEntry.fixedOverhead + 2 + tags)
        #expect(StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 0).cost > CacheEntry.fixedOverhead)
    }

    @Test func statisticsReportTheConfiguredBound() {
        let store = ResponseStore(maxBytes: 1_000_000)
        #expect(store.statistics.maxBytes == 1_000_000)
        #expect(store.maxEntryCost == 1_000_000)
        #expect(store.shardCount == 1)
    }
}
