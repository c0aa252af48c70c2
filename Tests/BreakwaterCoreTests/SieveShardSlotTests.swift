// The store shard's compact layout: freed slots are reused before the slot array grows, soft-purge
// marks live in the slots, the byte count follows the entries, and entries of one operation share
// one set of per-operation fields while keeping their own values.

import BreakwaterCore
import Testing
import BreakwaterFixtures


/// glibc's size of the allocation at `pointer` (not in Swift's Glibc module).
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

struct SieveShardSlotTests {
    @Test func removedEntriesLeaveSlotsThatTheNextStoresReuse() {
        let store = ResponseStore(maxBytes: 1 << 24, shardCount: 1)
        for number in 0..<100 { store.store(StoreFixture.entry(key: StoreFixture.key(number)), now: StoreFixture.start) }
        #expect(store.slotCapacity == 100)
        for number in stride(from: 0, to: 100, by: 2) { store.remove(StoreFixture.key(number)) }
        #expect(store.statistics.entries == 50)
        #expect(store.slotCapacity == 100)
        for number in 100..<150 { store.store(StoreFixture.entry(key: StoreFixture.key(number)), now: StoreFixture.start) }
        #expect(store.slotCapacity == 100)
        #expect(store.statistics.entries == 100)
        #expect(store.consistencyProblems().isEmpty)
        for number in 0..<150 {
            let present = number >= 100 || number % 2 == 1
            #expect((store.lookup(StoreFixture.key(number), now: StoreFixture.start).entry != nil) == present)
        }
    }

    @Test func evictionFreesTheSlotThatTheNewEntryTakes() {
        let cost = StoreFixture.entry(key: StoreFixture.key(0)).cost
        let store = ResponseStore(maxBytes: 10 * cost, shardCount: 1)
        for number in 0..<1_000 {
            store.store(StoreFixture.entry(key: StoreFixture.key(number)), now: StoreFixture.start)
        }
        #expect(store.statistics.entries == 10)
        #expect(store.statistics.evictions == 990)
        #expect(store.slotCapacity == 10)
        #expect(store.statistics.bytes == 10 * cost)
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func aReplacedEntryKeepsOneSlotAndTheNewCost() {
        let store = ResponseStore(maxBytes: 1 << 24, shardCount: 1)
        store.store(StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 100), now: StoreFixture.start)
        let bigger = StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: 5_000)
        store.store(bigger, now: StoreFixture.start)
        #expect(store.statistics.entries == 1)
        #expect(store.statistics.bytes == bigger.cost)
        #expect(store.slotCapacity == 1)
        #expect(store.lookup(StoreFixture.key(1), now: StoreFixture.start).entry === bigger)
    }

    @Test func aSoftPurgeMarkStaysWithItsSlotAndGoesWithIt() {
        let store = ResponseStore(maxBytes: 1 << 24, shardCount: 1)
        store.store(StoreFixture.entry(key: StoreFixture.key(1)), now: StoreFixture.start)
        store.store(StoreFixture.entry(key: StoreFixture.key(2)), now: StoreFixture.start)
        #expect(store.purge(.all, soft: true, now: StoreFixture.start + .seconds(5)) == 2)
        // A second, later soft purge does not push the end of freshness back.
        store.purge(.all, soft: true, now: StoreFixture.start + .seconds(8))
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start + .seconds(5))) == "stale")
        #expect(
            StoreFixture.kind(store.lookup(StoreFixture.key(1), now: StoreFixture.start + .milliseconds(4_999)))
                == "fresh")
        // Past stale-while-revalidate (10s after the purge at 5s): served only if the origin fails.
        #expect(
            StoreFixture.kind(store.lookup(StoreFixture.key(2), now: StoreFixture.start + .seconds(15)))
                == "staleIfErrorOnly")
        // The slot freed and taken by a new entry carries no mark.
        store.remove(StoreFixture.key(1))
        store.store(StoreFixture.entry(key: StoreFixture.key(3)), now: StoreFixture.start)
        #expect(store.slotCapacity == 2)
        #expect(StoreFixture.kind(store.lookup(StoreFixture.key(3), now: StoreFixture.start + .seconds(6))) == "fresh")
        #expect(store.consistencyProblems().isEmpty)
    }

    @Test func entriesOfOneOperationShareTheirFieldsAndKeepTheirOwnValues() {
        let short = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(30), operationName: "A")
        let same = StoreFixture.entry(key: StoreFixture.key(2), ttl: .seconds(30), operationName: "A")
        let long = StoreFixture.entry(key: StoreFixture.key(3), ttl: .seconds(90), operationName: nil)
        #expect(short.publicCacheControl == same.publicCacheControl)
        #expect(short.ttl == .seconds(30))
        #expect(long.ttl == .seconds(90))
        #expect(short.operationName == "A")
        #expect(long.operationName == nil)
        #expect(short.publicCacheControl != long.publicCacheControl)
        #expect(long.publicCacheControl.contains("max-age=90"))
        #expect(short.documentDigest == StoreFixture.document)
        #expect(short.contentType == "application/json")
        #expect(short.staleWhileRevalidate == .seconds(10))
        #expect(short.staleIfError == .seconds(300))
        #expect(!short.isPerUser)
    }

    @Test(arguments: [0, 9, 10, 1_023, 1_024, 99_999, 100_000])
    func anEntrysPrebuiltBytesAreAllocatedToSize(bodyBytes: Int) {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), bodyBytes: bodyBytes, tags: ["A:1", "A"])
        // One allocation of exactly the object's header, the fields and the bytes: what is left is
        // the allocator's rounding. glibc hands out a free chunk whole when splitting it would
        // leave less than its 32-byte minimum, so up to 31 bytes more than asked, depending on the
        // heap's state (seen in a full test run).
        let object = UnsafeRawPointer(Unmanaged.passUnretained(entry).toOpaque())
        #expect(UnsafeRawPointer(entry.response.storageAddress) - object == 16 + MemoryLayout<CacheEntryFields>.size)
        let asked = 16 + MemoryLayout<CacheEntryFields>.size + entry.response.count
        let usable = mallocUsableSize(UnsafeMutableRawPointer(mutating: object))
        #expect(usable >= asked && usable - asked < 32)
        #expect(entry.response.count == entry.response.bodyStart + bodyBytes)
        #expect(entry.response.value(of: "Content-Length") == String(bodyBytes))
    }

    @Test func entriesWithTheSameTagsShareOneListAndKeepTheirOwnOtherwise() {
        let first = StoreFixture.entry(key: StoreFixture.key(1), tags: ["Launch:1", "Launch"])
        let second = StoreFixture.entry(key: StoreFixture.key(2), tags: ["Launch:1", "Launch"])
        let other = StoreFixture.entry(key: StoreFixture.key(3), tags: ["Launch:2", "Launch"])
        #expect(first.tags == second.tags)
        #expect(other.tags == ["Launch:2", "Launch"])
        first.tags.withUnsafeBufferPointer { a in
            second.tags.withUnsafeBufferPointer { b in #expect(a.baseAddress == b.baseAddress) }
        }
    }

    @Test func bytesFollowEveryWayAnEntryGoes() {
        let cost = StoreFixture.entry(key: StoreFixture.key(0)).cost
        let store = ResponseStore(maxBytes: 20 * cost, shardCount: 1)
        for number in 0..<20 {
            store.store(
                StoreFixture.entry(key: StoreFixture.key(number), ttl: .seconds(number < 5 ? 1 : 60), tags: ["T:\(number % 3)"]),
                now: StoreFixture.start)
        }
        func summed() -> Int {
            (0..<40).reduce(0) { total, number in
                total + (store.lookup(StoreFixture.key(number), now: StoreFixture.start).entry?.cost ?? 0)
            }
        }
        #expect(store.statistics.bytes == summed())
        store.remove(StoreFixture.key(7))
        #expect(store.statistics.bytes == summed())
        store.purge(.tag("T:1"), soft: false, now: StoreFixture.start)
        #expect(store.statistics.bytes == summed())
        // Entries 0..<5 expired long ago: the eviction hand takes them first, as expired.
        for number in 20..<30 {
            store.store(StoreFixture.entry(key: StoreFixture.key(number), tags: ["T:\(number % 3)"]), now: StoreFixture.start + .seconds(400))
        }
        #expect(store.statistics.bytes == summed())
        #expect(store.statistics.bytes <= store.maxBytes)
        #expect(store.consistencyProblems().isEmpty)
    }
}
