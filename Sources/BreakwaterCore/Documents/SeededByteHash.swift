// A fast hash of long byte strings (request bodies, document texts) for the per-loop memo and
// the digest cache: keys up to kilobytes long are hashed on every miss, and the standard
// library's SipHash (`Hasher.combine(bytes:)`) spent about 14 instructions per byte on them.

/// Hashes bytes eight at a time with multiply-xorshift rounds from a per-process random seed.
///
/// Not a cryptographic hash: the seed keeps collisions from being chosen in advance, and the
/// dictionaries that use it mix the result with their own seeded hasher once more.
package enum SeededByteHash {
    private static let seed = UInt64.random(in: .min ... .max)

    /// The hash of `bytes`; `kind` separates key spaces that share a table.
    package static func hash(_ bytes: UnsafeRawBufferPointer, kind: UInt64 = 0) -> Int {
        var state = (seed ^ kind) &+ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15
        var offset = 0
        // Two independent lanes over 16-byte strides (their multiplies overlap), folded together.
        if bytes.count >= 32 {
            var other = state ^ 0xD6E8_FEB8_6659_FD93
            while offset + 16 <= bytes.count {
                state = (state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                other = (other ^ bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)) &* 0x94D0_49BB_1331_11EB
                state ^= state >> 29
                other ^= other >> 32
                offset += 16
            }
            state = (state ^ other) &* 0xBF58_476D_1CE4_E5B9
        }
        while offset + 8 <= bytes.count {
            state = (state ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 29
            offset += 8
        }
        var tail: UInt64 = 0
        while offset < bytes.count {
            tail = tail << 8 | UInt64(bytes[offset])
            offset += 1
        }
        state = (state ^ tail) &* 0x94D0_49BB_1331_11EB
        return Int(truncatingIfNeeded: state ^ (state >> 31))
    }

    /// The hash of `text`'s UTF-8 bytes.
    package static func hash(_ text: String, kind: UInt64 = 0) -> Int {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0), kind: kind) }
    }
}
