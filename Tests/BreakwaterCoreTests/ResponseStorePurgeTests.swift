// ResponseStore purges: each selector, hard and soft; soft purges serve stale for the entry's
// stale-while-revalidate window and then expire; indexes hold no ghosts after eviction.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct ResponseStorePurgeTests {
    /// Four entries: names are the keys' numbers, tags as `cache.invalidate_on_mutation` would set them.
    private static func makeStore(shardCount: Int = 16) -> ResponseStore {
        let store = ResponseStore(maxBytes: 1 << 20, shardCount: shardCount)
        let entries = [
            StoreFixture.entry(
                key: StoreFixture.key(1), operationName: "GetLaunches", tags: ["Launch:1", "Launch:2", "Launch"]),
            StoreFixture.entry(
                key: StoreFixture.key(2), document: StoreFixture.otherDocument, operationName: "GetLaunchDetail",
                tags: ["Launch:2", "Launch", "Rocket:9", "Rocket"]
            ),
            StoreFixture.entry(
                key: StoreFixture.key(3), document: StoreFixture.hasher.sha256("{ me { id } }"), operationName: "Me",
                tags: ["User:7", "User"]),
            StoreFixture.entry(key: StoreFixture.key(4), operationName: nil),
        ]
        for entry in entries { store.store(entry, now: StoreFixture.start) }
        return store
    }

    static let cases: [(PurgeSelector, Set<Int>)] = [
        (.all, [1, 2, 3, 4]),
        (.operation("GetLaunches"), [1]),
        (.operation("getlaunches"), []),
        (.document(StoreFixture.document), [1, 4]),
        (.document(StoreFixture.otherDocument), [2]),
        (.tag("Launch:2"), [1, 2]),
        (.tag("Launch"), [1, 2]),
        (.tag("Rocket:9"), [2]),
        (.tag("Launch:3"), []),
    ]

    @Test(arguments: cases)
    func hardPurgeRemovesExactlyTheSelectedEntries(selector: PurgeSelector, purged: Set<Int>) {
        let store = Self.makeStore()
        let now = StoreFixture.start + .seconds(1)
        #expect(store.purge(selector, soft: false, now: now) == purged.count)
        for number in 1...4 {
            let kind = StoreFixture.kind(store.lookup(StoreFixture.key(number), now: now))
            #expect(kind == (purged.contains(number) ? "miss" : "fresh"), "entry \(number)")
        }
        #expect(store.statistics.entries == 4 - purged.count)
        #expect(store.statistics.expired == 0)
        #expect(store.consistencyProblems().isEmpty)
        // A second purge finds nothing left to remove.
        #expect(store.purge(selector, soft: false, now: now) == 0)
    }

    @Test(arguments: cases)
    func softPurgeMakesTheSelectedEntriesStaleThenExpired(selector: PurgeSelector, purged: Set<Int>) {
        let store = Self.makeStore()
        let purgedAt = StoreFixture.start + .seconds(1)
        #expect(store.purge(selector, soft: true, now: purgedAt) == purged.count)
        #expect(store.statistics.entries == 4)
        // The fixture's windows: TTL 30s, stale-while-revalidate 10s, stale-if-error 300s.
        let expectations: [(Duration, String)] = [
            (.zero, "stale"), (.milliseconds(9_999), "stale"), (.seconds(10), "staleIfErrorOnly"),
            (.milliseconds(299_999), "staleIfErrorOnly"),
        ]
        for (offset, purgedKind) in expectations {
            for number in 1...4 {
                let now = purgedAt + offset
                let kind = StoreFixture.kind(store.lookup(StoreFixture.key(number), now: now))
                let untouchedKind = StoreFixture.kind(
                    CacheLookup(classifying: StoreFixture.entry(key: StoreFixture.key(0)), staleSince: nil, now: now))
                #expect(kind == (purged.contains(number) ? purgedKind : untouchedKind), "entry \(number) at +\(offset)")
            }
        }
        for number in purged {
            #expect(StoreFixture.kind(store.lookup(StoreFixture.key(number), now: purgedAt + .seconds(300))) == "miss")
        }
        #expect(store.statistics.expired == purged.count)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func softPurgeServesStaleForTheRevalidateWindowThenExpires() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(
            StoreFixture.entry(key: key, ttl: .seconds(30), staleWhileRevalidate: .seconds(10), staleIfError: .zero),
            now: StoreFixture.start
        )
        #expect(store.purge(.tag("none"), soft: true, now: StoreFixture.start) == 0)
        #expect(store.purge(.operation("GetLaunches"), soft: true, now: StoreFixture.start + .seconds(5)) == 1)
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(5))) == "stale")
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .milliseconds(14_999))) == "stale")
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(15))) == "miss")
        #expect(store.statistics.expired == 1)
    }

    @Test func softPurgeNeverExtendsAnEntrysLife() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(
            StoreFixture.entry(key: key, ttl: .seconds(30), staleWhileRevalidate: .seconds(10), staleIfError: .zero),
            now: StoreFixture.start
        )
        // Purged once at +5s, then again at +8s: the first purge's instant stands.
        store.purge(.all, soft: true, now: StoreFixture.start + .seconds(5))
        store.purge(.all, soft: true, now: StoreFixture.start + .seconds(8))
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(15))) == "miss")

        // Purged when already stale: it expires when it would have anyway.
        store.store(
            StoreFixture.entry(key: key, ttl: .seconds(30), staleWhileRevalidate: .seconds(10), staleIfError: .zero),
            now: StoreFixture.start
        )
        store.purge(.document(StoreFixture.document), soft: true, now: StoreFixture.start + .seconds(35))
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .milliseconds(39_999))) == "stale")
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(40))) == "miss")
    }

    @Test func replacingASoftPurgedEntryMakesItFreshAgain() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(StoreFixture.entry(key: key), now: StoreFixture.start)
        store.purge(.all, soft: true, now: StoreFixture.start + .seconds(1))
        let refreshed = StoreFixture.entry(key: key, storedAt: StoreFixture.start + .seconds(2))
        store.store(refreshed, now: StoreFixture.start + .seconds(2))
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(3))) == "fresh")
    }

    @Test func purgeByTagReachesEveryShard() {
        let store = ResponseStore(maxBytes: 1 << 22)
        for number in 0..<200 {
            store.store(
                StoreFixture.entry(key: StoreFixture.key(number), tags: ["Launch:\(number)", "Launch"]),
                now: StoreFixture.start)
        }
        #expect(store.purge(.tag("Launch:17"), soft: false, now: StoreFixture.start) == 1)
        #expect(store.purge(.tag("Launch"), soft: true, now: StoreFixture.start) == 199)
        #expect(store.purge(.tag("Launch"), soft: false, now: StoreFixture.start) == 199)
        #expect(store.statistics.entries == 0)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func tagIndexHoldsNoGhostsAfterEviction() {
        let probe = StoreFixture.entry(key: StoreFixture.key(0), tags: ["Launch:0", "Launch"])
        let store = ResponseStore(maxBytes: 3 * probe.cost, shardCount: 1)
        var evicted = 0
        for number in 0..<10 {
            // Equal-length tags, so that every entry costs the same.
            evicted += store.store(
                StoreFixture.entry(key: StoreFixture.key(number), tags: ["Launch:\(number)", "Launch"]),
                now: StoreFixture.start)
        }
        #expect(evicted == 7)
        #expect(store.statistics.evictions == 7)
        #expect(store.consistencyProblems().isEmpty)
        for number in 0..<7 {
            #expect(store.purge(.tag("Launch:\(number)"), soft: false, now: StoreFixture.start) == 0)
        }
        #expect(store.purge(.operation("GetLaunches"), soft: true, now: StoreFixture.start) == 3)
        #expect(store.purge(.tag("Launch"), soft: false, now: StoreFixture.start) == 3)
        #expect(store.statistics.bytes == 0)
    }
}
