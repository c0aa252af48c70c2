// A tag's list of slot numbers in little memory: most lists hold numbers close to each other.

/// A list of slot numbers, each stored as the zigzag LEB128 varint of its difference from the
/// number before it (the first from 0): entries stored one after another take 1 byte each,
/// numbers far apart at most 5.
package struct SlotDeltas {
    private var bytes: [UInt8] = []
    /// The last number appended, the base of the next difference.
    private var last: UInt32 = 0
    package private(set) var count = 0

    package init() {}

    package init(_ slots: [UInt32]) {
        bytes.reserveCapacity(slots.count)
        for slot in slots { append(slot) }
    }

    package var encodedCount: Int { bytes.count }

    package mutating func append(_ slot: UInt32) {
        let difference = Int64(slot) - Int64(last)
        var zigzag = UInt64(bitPattern: (difference << 1) ^ (difference >> 63))
        while zigzag >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: zigzag) | 0x80)
            zigzag >>= 7
        }
        bytes.append(UInt8(zigzag))
        last = slot
        count += 1
    }

    /// Calls `body` with each number, in the order they were appended.
    package func forEach(_ body: (UInt32) -> Void) {
        var current: Int64 = 0
        var zigzag: UInt64 = 0
        var shift: UInt64 = 0
        for byte in bytes {
            zigzag |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 != 0 {
                shift += 7
                continue
            }
            current += Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            body(UInt32(truncatingIfNeeded: current))
            zigzag = 0
            shift = 0
        }
    }
}
