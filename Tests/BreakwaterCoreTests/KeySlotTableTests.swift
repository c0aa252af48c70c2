// KeySlotTable, the store shard's open-addressing key index: finds, removals with backward shift
// (runs that wrap around the end, colliding hashes), growth, against a plain dictionary as model.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct KeySlotTableTests {
    @Test func anEmptyTableFindsNothingAndRemovesNothing() {
        var table = KeySlotTable()
        #expect(table.firstSlot(hash: 7) { _ in true } == nil)
        table.remove(slot: 3, hash: 7)
        #expect(table.count == 0)
        #expect(table.capacity == 0)
    }

    @Test func slotsSharingAHashAreTellApartByTheCallersCheck() {
        var table = KeySlotTable()
        for slot in UInt32(0)..<5 { table.insert(slot: slot, hash: 42) }
        for wanted in UInt32(0)..<5 {
            #expect(table.firstSlot(hash: 42) { $0 == wanted } == wanted)
        }
        #expect(table.firstSlot(hash: 42) { $0 == 9 } == nil)
        table.remove(slot: 2, hash: 42)
        #expect(table.firstSlot(hash: 42) { $0 == 2 } == nil)
        for still in [UInt32(0), 1, 3, 4] { #expect(table.firstSlot(hash: 42) { $0 == still } == still) }
        #expect(table.count == 4)
    }

    @Test func aRunThatWrapsPastTheLastBucketSurvivesRemovalsAtItsStart() {
        var table = KeySlotTable()
        // 16 buckets, a hash's home its top 4 bits: 14 and 15 sit at the end, their followers
        // wrap to buckets 0, 1, 2.
        let hashes: [UInt32] = [14 << 28, 15 << 28, 14 << 28, 15 << 28, 14 << 28]
        for (slot, hash) in hashes.enumerated() { table.insert(slot: UInt32(slot), hash: hash) }
        #expect(table.capacity == 16)
        table.remove(slot: 0, hash: 14)
        table.remove(slot: 1, hash: 15)
        for (slot, hash) in hashes.enumerated().dropFirst(2) {
            #expect(table.firstSlot(hash: hash) { $0 == UInt32(slot) } == UInt32(slot))
        }
        // A key homed at bucket 0 is found though wrapped entries were shifted back over it.
        table.insert(slot: 9, hash: 16)
        #expect(table.firstSlot(hash: 16) { $0 == 9 } == 9)
    }

    @Test func growsByHalfToStayAtMostThreeQuartersFull() {
        var table = KeySlotTable()
        var capacities: [Int] = []
        for slot in UInt32(0)..<1_000 {
            table.insert(slot: slot, hash: slot &* 2_654_435_761)
            if capacities.last != table.capacity { capacities.append(table.capacity) }
            #expect(table.count * 4 <= table.capacity * 3)
        }
        #expect(table.count == 1_000)
        #expect(capacities == [16, 24, 36, 54, 81, 121, 181, 271, 406, 609, 913, 1_369])
        for slot in UInt32(0)..<1_000 {
            #expect(table.firstSlot(hash: slot &* 2_654_435_761) { $0 == slot } == slot)
        }
        table.removeAll()
        #expect(table.count == 0)
        #expect(table.firstSlot(hash: 0) { _ in true } == nil)
    }

    /// Random inserts and removals over a small hash space (long colliding runs), checked against
    /// a dictionary after every step.
    @Test(arguments: [UInt64(1), 2, 3])
    func randomTraceAgreesWithADictionary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var table = KeySlotTable()
        var model: [UInt32: UInt32] = [:]  // slot -> hash
        for step in 0..<20_000 {
            let slot = UInt32(random.next(below: 600))
            if let hash = model[slot] {
                table.remove(slot: slot, hash: hash)
                model[slot] = nil
            } else {
                // Hashes from a space of 64 values over every bucket (a home is the hash's top
                // bits): runs collide and wrap.
                let hash = UInt32(random.next(below: 64)) &* 67_108_864 &+ UInt32(random.next(below: 3))
                table.insert(slot: slot, hash: hash)
                model[slot] = hash
            }
            if step % 97 == 0 {
                #expect(table.count == model.count)
                for (slot, hash) in model {
                    #expect(table.firstSlot(hash: hash) { $0 == slot } == slot)
                }
                let held = table.pairs
                #expect(held.count == model.count)
                #expect(held.allSatisfy { model[$0.slot] == $0.hash })
            }
        }
    }
}
