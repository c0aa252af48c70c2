// TagSlotIndex, the store shard's tag index: live counts, slots checked against their entries,
// each slot reported once after reuse, and lists compacted as entries go.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct TagSlotIndexTests {
    /// The tags of the entry in each slot, as the shard would answer `carries`.
    private struct Slots {
        var tags: [UInt32: [String]] = [:]

        func carries(_ slot: UInt32, _ tag: String) -> Bool { tags[slot]?.contains(tag) ?? false }
    }

    @Test func findsTheSlotsOfATagAndForgetsATagNoEntryCarries() {
        var index = TagSlotIndex()
        var slots = Slots()
        for (slot, tags) in [(UInt32(0), ["A:1", "A"]), (1, ["A:2", "A"]), (2, ["B"])] {
            slots.tags[slot] = tags
            index.insert(slot: slot, tags: tags)
        }
        #expect(Set(index.slots(for: "A", carries: slots.carries)) == [0, 1])
        #expect(index.slots(for: "A:2", carries: slots.carries) == [1])
        #expect(index.slots(for: "C", carries: slots.carries).isEmpty)
        #expect(index.tagCount == 4)
        slots.tags[1] = nil
        index.remove(slot: 1, tags: ["A:2", "A"], carries: slots.carries)
        #expect(index.tagCount == 3)
        #expect(index.slots(for: "A", carries: slots.carries) == [0])
    }

    @Test func aReusedSlotIsReportedOnceAndAGoneEntryNotAtAll() {
        var index = TagSlotIndex()
        var slots = Slots()
        slots.tags[0] = ["T"]
        index.insert(slot: 0, tags: ["T"])
        slots.tags[1] = ["T"]
        index.insert(slot: 1, tags: ["T"])
        // Slot 0's entry goes; a new entry with the same tag takes the slot: listed twice now.
        slots.tags[0] = nil
        index.remove(slot: 0, tags: ["T"], carries: slots.carries)
        slots.tags[0] = ["T"]
        index.insert(slot: 0, tags: ["T"])
        #expect(index.slots(for: "T", carries: slots.carries).sorted() == [0, 1])
        // Slot 1's entry goes and a tagless one takes it: not reported.
        slots.tags[1] = []
        index.remove(slot: 1, tags: ["T"], carries: slots.carries)
        #expect(index.slots(for: "T", carries: slots.carries) == [0])
        #expect(index.census(carries: slots.carries)["T"]?.live == 1)
    }

    @Test func removingATagTakesItsSlotsOut() {
        var index = TagSlotIndex()
        var slots = Slots()
        for slot in UInt32(0)..<5 {
            slots.tags[slot] = ["X", "Y"]
            index.insert(slot: slot, tags: ["X", "Y"])
        }
        #expect(index.removeSlots(for: "X", carries: slots.carries).sorted() == [0, 1, 2, 3, 4])
        #expect(index.slots(for: "X", carries: slots.carries).isEmpty)
        #expect(index.tagCount == 1)
        // The entries' removal afterwards finds no record of X and leaves Y consistent.
        for slot in UInt32(0)..<5 {
            slots.tags[slot] = nil
            index.remove(slot: slot, tags: ["X", "Y"], carries: slots.carries)
        }
        #expect(index.tagCount == 0)
        #expect(index.postingCount == 0)
    }

    @Test func listsStayWithinTwiceTheirLiveEntriesUnderChurn() {
        var index = TagSlotIndex()
        var slots = Slots()
        var random = SplitMix64(seed: 11)
        // 200 slots, each reused many times by entries carrying the shared tag and one of 10 more.
        for _ in 0..<20_000 {
            let slot = UInt32(random.next(below: 200))
            if let old = slots.tags[slot] {
                slots.tags[slot] = nil
                index.remove(slot: slot, tags: old, carries: slots.carries)
            }
            let tags = ["All", "Group:\(random.next(below: 10))"]
            slots.tags[slot] = tags
            index.insert(slot: slot, tags: tags)
        }
        let live = slots.tags.values.reduce(0) { $0 + $1.count }
        #expect(index.postingCount <= 2 * live + 8 * index.tagCount + index.tagCount)
        let census = index.census(carries: slots.carries)
        #expect(census["All"]?.live == slots.tags.count)
        #expect(census["All"]?.slots == Set(slots.tags.keys))
        for group in 0..<10 {
            let carriers = Set(slots.tags.filter { $0.value.contains("Group:\(group)") }.keys)
            #expect(census["Group:\(group)"]?.slots ?? [] == carriers)
        }
    }
}

extension TagSlotIndexTests {
    @Test func entriesStoredOneAfterAnotherCostAFewBytesATag() {
        var index = TagSlotIndex()
        let tags = ["Launch:1", "Launch:2", "Launch", "Rocket:falcon9", "Rocket"]
        for slot in UInt32(0)..<10_000 { index.insert(slot: slot, tags: tags) }
        #expect(index.postingCount == 50_000)
        // Each list: slot 0, then a run of 9,999 (marker, 2-byte length).
        #expect(index.encodedBytes == 5 * (1 + 1 + 2))
        // Every other slot: a byte each.
        var sparse = TagSlotIndex()
        for slot in stride(from: UInt32(0), to: 20_000, by: 2) { sparse.insert(slot: slot, tags: tags) }
        #expect(sparse.encodedBytes == 50_000)
        let all = Set(UInt32(0)..<10_000)
        #expect(Set(index.slots(for: "Rocket", carries: { _, _ in true })) == all)
    }
}
