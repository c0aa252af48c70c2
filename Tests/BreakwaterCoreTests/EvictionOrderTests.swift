// SIEVE's order: a hit only sets the visited bit, the hand evicts the first unvisited entry from
// the tail and resumes where it stopped, and expired entries it meets go first, counted as expired.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct EvictionOrderTests {
    /// A one-shard store that holds exactly `capacity` entries of the fixture's default size.
    private static func makeStore(capacity: Int) -> ResponseStore {
        ResponseStore(maxBytes: capacity * StoreFixture.entry(key: StoreFixture.key(0)).cost, shardCount: 1)
    }

    private static func store(_ numbers: Int..., in store: ResponseStore) {
        for number in numbers {
            store.store(StoreFixture.entry(key: StoreFixture.key(number)), now: StoreFixture.start)
        }
    }

    private static func hit(_ numbers: Int..., in store: ResponseStore) {
        for number in numbers { _ = store.lookup(StoreFixture.key(number), now: StoreFixture.start) }
    }

    /// Which of `numbers` are stored (looking them up marks them visited: call it last).
    private static func present(_ numbers: ClosedRange<Int>, in store: ResponseStore) -> [Int] {
        numbers.filter { store.lookup(StoreFixture.key($0), now: StoreFixture.start).entry != nil }
    }

    @Test func handSparesVisitedEntriesAndEvictsTheFirstUnvisitedFromTheTail() {
        let store = Self.makeStore(capacity: 3)
        Self.store(1, 2, 3, in: store)
        Self.hit(1, in: store)
        // Queue from the tail: 1 (visited), 2, 3. The hand clears 1's bit and evicts 2, then
        // goes on from 3: an LRU would have evicted 2, 3, then 1; a FIFO 1 first.
        Self.store(4, 5, 6, in: store)
        #expect(Self.present(1...6, in: store) == [1, 5, 6])
        #expect(store.statistics.evictions == 3)
    }

    @Test func handResumesWhereItStoppedRatherThanAtTheTail() {
        let store = Self.makeStore(capacity: 4)
        Self.store(1, 2, 3, 4, in: store)
        Self.hit(1, 2, in: store)
        Self.store(5, in: store)
        // The hand passed 1 and 2 (clearing their bits) and evicted 3; it now points at 4, so
        // 4 goes next even though 2, nearer the tail, is unvisited too.
        Self.hit(1, in: store)
        Self.store(6, in: store)
        #expect(Self.present(1...6, in: store) == [1, 2, 5, 6])
    }

    @Test func handRestartsAtTheTailAfterEvictingTheHead() {
        let store = Self.makeStore(capacity: 3)
        Self.store(1, 2, 3, in: store)
        Self.hit(1, 2, in: store)
        // 3 is evicted from the head, so the hand falls off the queue and the next scan starts
        // at the tail again: 1 was hit since, 2 was not.
        Self.store(4, in: store)
        Self.hit(1, in: store)
        Self.store(5, in: store)
        #expect(Self.present(1...5, in: store) == [1, 4, 5])
    }

    @Test func handWrapsAroundWhenEveryEntryWasVisited() {
        let store = Self.makeStore(capacity: 3)
        Self.store(1, 2, 3, in: store)
        Self.hit(1, 2, 3, in: store)
        Self.store(4, in: store)
        #expect(Self.present(1...4, in: store) == [2, 3, 4])
    }

    @Test func expiredEntryMetByTheHandGoesFirstAndCountsAsExpired() {
        let store = Self.makeStore(capacity: 3)
        store.store(
            StoreFixture.entry(
                key: StoreFixture.key(1), ttl: .seconds(1), staleWhileRevalidate: .zero, staleIfError: .zero),
            now: StoreFixture.start
        )
        Self.store(2, 3, in: store)
        Self.hit(1, in: store)
        let evicted = store.store(StoreFixture.entry(key: StoreFixture.key(4)), now: StoreFixture.start + .seconds(2))
        #expect(evicted == 0)
        #expect(store.statistics.evictions == 0)
        #expect(store.statistics.expired == 1)
        #expect(Self.present(1...4, in: store) == [2, 3, 4])
    }

    @Test func storeReturnsHowManyEntriesMadeRoom() {
        let store = Self.makeStore(capacity: 3)
        Self.store(1, 2, 3, in: store)
        let cost = StoreFixture.entry(key: StoreFixture.key(0)).cost
        // Twice the cost: one more body's worth of bytes, less the digit its Content-Length line gains.
        let longerLength = String(100 + cost).utf8.count - String(100).utf8.count
        let double = StoreFixture.entry(key: StoreFixture.key(9), bodyBytes: 100 + cost - longerLength)
        #expect(double.cost == 2 * cost)
        #expect(store.store(double, now: StoreFixture.start) == 2)
        #expect(Self.present(1...9, in: store) == [3, 9])
        #expect(store.statistics.bytes == 3 * cost)
    }
}
