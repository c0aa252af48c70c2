// The response store's size-scaled sharding (a small cache is never worse than one LRU) and its
// `cache.expired` count (README "The response cache" and "Watching it: the admin endpoints").

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct ResponseStoreReliabilityTests {
    @Test(arguments: [
        (64 * 1024, 1), (4 << 20, 1), (8 << 20, 2), (32 << 20, 8), (64 << 20, 16), (256 << 20, 16), (0, 1),
    ])
    func shardCountGrowsWithTheBudget(maxBytes: Int, shards: Int) {
        #expect(ResponseStore.shardCount(forMaxBytes: maxBytes) == shards)
        #expect(ResponseStore(maxBytes: maxBytes).shardCount == shards)
    }

    /// How many times a key requested every fourth request is fetched (stored on a miss) while every
    /// other request is a new one-hit key, in a store of `maxBytes` with `shardCount` shards.
    private static func hotFetches(maxBytes: Int, shardCount: Int?, requests: Int = 600) -> Int {
        let store = ResponseStore(maxBytes: maxBytes, shardCount: shardCount)
        let body = [UInt8](repeating: 0x20, count: 2_000)
        let hot = StoreFixture.key(-1)
        var fetches = 0
        for request in 0..<requests {
            let key = request % 4 == 0 ? hot : StoreFixture.key(request)
            if case .fresh = store.lookup(key, now: StoreFixture.start) { continue }
            if key == hot { fetches += 1 }
            store.store(StoreFixture.entry(key: key, ttl: .seconds(3_600), body: body), now: StoreFixture.start)
        }
        return fetches
    }

    /// The probe's finding: with 16 shards a 64 KiB cache gives each shard 4 KiB, room for one
    /// 2 KB answer, so every one-hit entry that lands in the hot entry's shard pushes it out.
    /// Sized by its budget, the store is one SIEVE and the hot entry is fetched once.
    @Test func hotEntrySurvivesAScanOfOneHitEntriesInA64KiBCache() {
        let sixteenShards = Self.hotFetches(maxBytes: 64 * 1024, shardCount: 16)
        let scaled = Self.hotFetches(maxBytes: 64 * 1024, shardCount: nil)
        print("hot entry fetched \(sixteenShards) times with 16 shards, \(scaled) with size-scaled shards (64 KiB)")
        #expect(sixteenShards > 1)
        #expect(scaled == 1)
    }

    /// The same workload in a large cache, which is split into 16 shards, still fetches it once.
    @Test func hotEntrySurvivesTheSameScanInALargeCache() {
        #expect(Self.hotFetches(maxBytes: 256 << 20, shardCount: nil) == 1)
    }

    // MARK: - cache.expired

    @Test func refetchReplacingAnEntryPastItsTTLCountsAsExpired() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(StoreFixture.entry(key: key, ttl: .seconds(30)), now: StoreFixture.start)
        let later = StoreFixture.start + .seconds(35)
        #expect(StoreFixture.kind(store.lookup(key, now: later)) == "stale")
        store.store(StoreFixture.entry(key: key, storedAt: later, ttl: .seconds(30)), now: later)
        #expect(store.statistics.expired == 1)
        #expect(store.statistics.entries == 1)
        #expect(store.statistics.evictions == 0)
    }

    @Test func replacingAFreshEntryIsNotExpiry() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(StoreFixture.entry(key: key, ttl: .seconds(30)), now: StoreFixture.start)
        let later = StoreFixture.start + .seconds(10)
        store.store(StoreFixture.entry(key: key, storedAt: later, ttl: .seconds(30)), now: later)
        #expect(store.statistics.expired == 0)
    }

    @Test func entryFoundPastEveryWindowCountsOnceAsExpired() {
        let store = ResponseStore(maxBytes: 1 << 20)
        let key = StoreFixture.key(1)
        store.store(
            StoreFixture.entry(key: key, ttl: .seconds(30), staleWhileRevalidate: .seconds(10), staleIfError: .zero),
            now: StoreFixture.start)
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(41))) == "miss")
        #expect(StoreFixture.kind(store.lookup(key, now: StoreFixture.start + .seconds(42))) == "miss")
        #expect(store.statistics.expired == 1)
        // Stored again after it went: a new entry, nothing more expired.
        store.store(StoreFixture.entry(key: key, storedAt: StoreFixture.start + .seconds(42)), now: StoreFixture.start + .seconds(42))
        #expect(store.statistics.expired == 1)
    }

    @Test func entryPastItsWindowsRemovedByTheEvictionHandCountsAsExpired() {
        let probe = StoreFixture.entry(key: StoreFixture.key(0))
        let store = ResponseStore(maxBytes: 2 * probe.cost, shardCount: 1)
        store.store(
            StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(1), staleWhileRevalidate: .zero, staleIfError: .zero),
            now: StoreFixture.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(2)), now: StoreFixture.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(3)), now: StoreFixture.start + .seconds(5))
        #expect(store.statistics.expired == 1)
        #expect(store.statistics.evictions == 0)
    }

    @Test func hardPurgeIsNotExpiry() {
        let store = ResponseStore(maxBytes: 1 << 20)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(1)), now: StoreFixture.start)
        #expect(store.purge(.all, soft: false, now: StoreFixture.start + .seconds(5)) == 1)
        #expect(store.statistics.expired == 0)
    }
}
