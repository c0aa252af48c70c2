// LRUCache: recency order, eviction, slot reuse, and agreement with a naive model under random use.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct LRUCacheTests {
    @Test func fullCacheEvictsLeastRecentlyUsedAndReportsIt() {
        var cache = LRUCache<String, Int>(capacity: 3)
        #expect(cache.set("a", 1) == nil)
        #expect(cache.set("b", 2) == nil)
        #expect(cache.set("c", 3) == nil)
        let evicted = cache.set("d", 4)
        #expect(evicted?.key == "a" && evicted?.value == 1)
        #expect(cache.count == 3)
        #expect(cache.peek("a") == nil)
        #expect(keys(cache) == ["b", "c", "d"])
    }

    @Test func getMarksEntryRecentlyUsed() {
        var cache = LRUCache<String, Int>(capacity: 3)
        cache.set("a", 1)
        cache.set("b", 2)
        cache.set("c", 3)
        #expect(cache.get("a") == 1)
        #expect(cache.set("d", 4)?.key == "b")
        #expect(keys(cache) == ["c", "a", "d"])
    }

    @Test func peekLeavesOrderUnchanged() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache.set("a", 1)
        cache.set("b", 2)
        #expect(cache.peek("a") == 1)
        #expect(cache.set("c", 3)?.key == "a")
    }

    @Test func settingAnExistingKeyReplacesValueRefreshesAndEvictsNothing() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache.set("a", 1)
        cache.set("b", 2)
        #expect(cache.set("a", 10) == nil)
        #expect(cache.count == 2)
        #expect(cache.peek("a") == 10)
        #expect(cache.set("c", 3)?.key == "b")
    }

    @Test func removeFreesRoomWithoutEviction() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache.set("a", 1)
        cache.set("b", 2)
        #expect(cache.remove("a") == 1)
        #expect(cache.remove("a") == nil)
        #expect(cache.count == 1)
        #expect(cache.set("c", 3) == nil)
        #expect(keys(cache) == ["b", "c"])
    }

    @Test func removeAllEmptiesAndCacheStaysUsable() {
        var cache = LRUCache<String, Int>(capacity: 2)
        cache.set("a", 1)
        cache.set("b", 2)
        cache.removeAll()
        #expect(cache.isEmpty)
        #expect(cache.get("a") == nil)
        cache.set("c", 3)
        #expect(keys(cache) == ["c"])
    }

    @Test func capacityOfOneKeepsOnlyTheLatest() {
        var cache = LRUCache<Int, Int>(capacity: 1)
        cache.set(1, 1)
        #expect(cache.set(2, 2)?.key == 1)
        #expect(keys(cache) == [2])
    }

    /// Random gets, sets and removes agree with a model that keeps keys in an array.
    @Test(arguments: [1, 2, 7, 64])
    func randomOperationsAgreeWithNaiveModel(capacity: Int) {
        var cache = LRUCache<Int, Int>(capacity: capacity)
        var model: [(key: Int, value: Int)] = []  // least recent first
        var random = SplitMix64(seed: UInt64(capacity))
        for step in 0..<5_000 {
            let key = Int(random.next() % UInt64(capacity * 2 + 1))
            switch random.next() % 4 {
            case 0:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                if let expected { model.append(expected) }
                #expect(cache.get(key) == expected?.value)
            case 1:
                let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0).value }
                #expect(cache.remove(key) == expected)
            default:
                var expectedEviction: (key: Int, value: Int)?
                if let index = model.firstIndex(where: { $0.key == key }) {
                    model.remove(at: index)
                } else if model.count == capacity {
                    expectedEviction = model.removeFirst()
                }
                model.append((key, step))
                let evicted = cache.set(key, step)
                #expect(evicted?.key == expectedEviction?.key && evicted?.value == expectedEviction?.value)
            }
            #expect(cache.count == model.count)
        }
        #expect(cache.leastRecentFirst.map(\.key) == model.map(\.key))
        #expect(cache.leastRecentFirst.map(\.value) == model.map(\.value))
    }

    private func keys<Key, Value>(_ cache: LRUCache<Key, Value>) -> [Key] {
        cache.leastRecentFirst.map(\.key)
    }
}
