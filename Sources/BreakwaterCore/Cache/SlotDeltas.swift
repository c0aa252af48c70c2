// A tag's list of slot numbers in little memory: most lists hold numbers close to each other, and
// a type's tag (`Launch`) often names every slot of a run of entries stored one after another.

/// A list of slot numbers, each stored as a varint of its difference from the number before it
/// (the first from 0): entries stored one after another take 1 byte each, numbers far apart at
/// most 5, and a run of numbers each one above the last takes a few bytes in all.
///
/// The encoding: a difference `d` is the LEB128 varint of its zigzag form plus one (`d` from -63
/// to 63 in one byte); a 0 byte starts a run, followed by the varint of its length `n`: `n`
/// numbers, each one above the one before.
package struct SlotDeltas {
    private var bytes: [UInt8] = []
    /// The last number appended, the base of the next difference.
    private var last: UInt32 = 0
    /// How many differences of +1 the last item stands for: 0 when it is another difference, 1
    /// for a plain +1, 2 or more for a run.
    private var trailingRun: UInt32 = 0
    package private(set) var count = 0

    package init() {}

    package init(_ slots: [UInt32]) {
        bytes.reserveCapacity(slots.count)
        for slot in slots { append(slot) }
    }

    package var encodedCount: Int { bytes.count }

    package mutating func append(_ slot: UInt32) {
        defer {
            last = slot
            count += 1
        }
        let difference = Int64(slot) - Int64(last)
        guard difference == 1, trailingRun > 0 else {
            appendVarint(UInt64(bitPattern: (difference << 1) ^ (difference >> 63)) + 1)
            trailingRun = difference == 1 ? 1 : 0
            return
        }
        // The last item becomes (or stays) a run, one longer.
        if trailingRun == 1 {
            bytes.removeLast()
            bytes.append(0)
        } else {
            bytes.removeLast(Self.varintCount(UInt64(trailingRun)))
        }
        trailingRun += 1
        appendVarint(UInt64(trailingRun))
    }

    private mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    private static func varintCount(_ value: UInt64) -> Int {
        var count = 1
        var value = value
        while value >= 0x80 {
            value >>= 7
            count += 1
        }
        return count
    }

    /// Calls `body` with each number, in the order they were appended.
    package func forEach(_ body: (UInt32) -> Void) {
        var current: Int64 = 0
        var index = 0
        func varint() -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = bytes[index]
                index += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { return value }
                shift += 7
            }
        }
        while index < bytes.count {
            let item = varint()
            if item == 0 {
                for _ in 0..<varint() {
                    current += 1
                    body(UInt32(truncatingIfNeeded: current))
                }
            } else {
                let zigzag = item - 1
                current += Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
                body(UInt32(truncatingIfNeeded: current))
            }
        }
    }
}
