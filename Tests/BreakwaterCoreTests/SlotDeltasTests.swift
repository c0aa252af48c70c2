// SlotDeltas, a tag's slot numbers as varint differences: every number comes back in order,
// and numbers stored one after another take a byte each.

import BreakwaterCore
import Testing

struct SlotDeltasTests {
    private static func decoded(_ deltas: SlotDeltas) -> [UInt32] {
        var slots: [UInt32] = []
        deltas.forEach { slots.append($0) }
        return slots
    }

    @Test(arguments: [
        [], [0], [0, 0, 0], [UInt32.max - 1, 0, UInt32.max - 1], [5, 4, 3, 2, 1, 0], [63, 64, 8_191, 8_192, 1 << 20, 3],
        [1 << 31, 1, (1 << 31) + 1],
    ] as [[UInt32]])
    func everyNumberComesBackInOrder(slots: [UInt32]) {
        let deltas = SlotDeltas(slots)
        #expect(Self.decoded(deltas) == slots)
        #expect(deltas.count == slots.count)
        #expect(deltas.encodedCount <= 5 * slots.count)
    }

    @Test func randomListsRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let slots = (0..<Int.random(in: 0..<300, using: &generator)).map { _ in
                Bool.random(using: &generator)
                    ? UInt32.random(in: 0..<(UInt32.max - 1), using: &generator) : UInt32.random(in: 0..<100, using: &generator)
            }
            var appended = SlotDeltas()
            for slot in slots { appended.append(slot) }
            #expect(Self.decoded(appended) == slots)
            #expect(Self.decoded(SlotDeltas(slots)) == slots)
        }
    }

    @Test func numbersStoredOneAfterAnotherTakeARunOfAFewBytes() {
        // 0 (1 byte), then a run of 99,999 numbers: its marker and length (1 + 3 bytes).
        let deltas = SlotDeltas(Array(0..<100_000))
        #expect(deltas.encodedCount == 1 + 1 + 3)
        #expect(deltas.count == 100_000)
        #expect(Self.decoded(deltas) == Array(0..<100_000))
        // Close but not consecutive: a byte each.
        #expect(SlotDeltas(Array(stride(from: 0, to: 1_000, by: 2))).encodedCount == 500)
        // Far apart: 2 bytes for differences below 8,192 either way, 5 at worst.
        #expect(SlotDeltas([0, 8_000, 0]).encodedCount == 1 + 2 + 2)
        #expect(SlotDeltas([0, UInt32.max - 1]).encodedCount == 1 + 5)
    }

    @Test(arguments: [
        [1, 2], [1, 2, 3], [7, 8, 9, 10, 3, 4, 5, 5, 6, 7, 200, 201, 202, 203, 204, 1],
        Array(0..<300) + Array(10..<20) + [UInt32.max - 2, UInt32.max - 1, 0, 1],
    ] as [[UInt32]])
    func runsBrokenAndStartedAgainComeBackInOrder(slots: [UInt32]) {
        var appended = SlotDeltas()
        for slot in slots { appended.append(slot) }
        #expect(Self.decoded(appended) == slots)
        #expect(appended.count == slots.count)
    }
}
