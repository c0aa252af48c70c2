// A strong entity tag of Breakwater's own form (`"` + 16 lowercase hex digits + `"`) kept as its
// 8 bytes, so that a cached answer stores one word for it instead of a 28-byte header line.

/// The 8 bytes behind a quoted 16-hex-digit entity tag.
///
/// Not every such tag is compact: all zeros, and values whose top 32 bits are all ones (what
/// `PrebuiltResponse` uses to mark stored lines), are kept as text like any other tag, and
/// written back byte for byte the same.
package struct CompactETag: Sendable, Equatable {
    package let value: UInt64

    /// Bytes of the quoted tag as written: the quotes and 16 hex digits.
    package static let quotedCount = 18

    /// Top 32 bits no compact tag has.
    package static let reservedHigh: UInt64 = 0xFFFF_FFFF

    package init?(value: UInt64) {
        guard value != 0, value >> 32 != Self.reservedHigh else { return nil }
        self.value = value
    }

    /// The tag `quoted` spells when it has exactly Breakwater's form (lowercase hex), else nil.
    package init?(quoted: String) {
        var value: UInt64 = 0
        var index = 0
        for byte in quoted.utf8 {
            defer { index += 1 }
            if index == 0 || index == Self.quotedCount - 1 {
                guard byte == UInt8(ascii: "\"") else { return nil }
                continue
            }
            guard index < Self.quotedCount - 1, let digit = Self.hexValue(byte) else { return nil }
            value = value << 4 | digit
        }
        guard index == Self.quotedCount else { return nil }
        self.init(value: value)
    }

    /// Writes the quoted tag (`quotedCount` bytes) at `start`.
    @inline(__always)
    package func write(at start: UnsafeMutablePointer<UInt8>) {
        start[0] = UInt8(ascii: "\"")
        UnsafeMutableRawPointer(start + 1).storeBytes(
            of: Self.hexDigits(UInt32(truncatingIfNeeded: value >> 32)), as: UInt64.self)
        UnsafeMutableRawPointer(start + 9).storeBytes(of: Self.hexDigits(UInt32(truncatingIfNeeded: value)), as: UInt64.self)
        start[17] = UInt8(ascii: "\"")
    }

    /// The quoted tag as text.
    package var quoted: String {
        String(unsafeUninitializedCapacity: Self.quotedCount) { buffer in
            write(at: buffer.baseAddress!)
            return Self.quotedCount
        }
    }

    /// The 8 lowercase hex digits of `value`, most significant first in memory: its nibbles
    /// spread one to a byte, then turned into digits eight at a time (no loop, no table).
    @inline(__always)
    private static func hexDigits(_ value: UInt32) -> UInt64 {
        // Nibble k of `value` to byte k.
        var spread = UInt64(value)
        spread = (spread & 0xFFFF_0000) << 16 | (spread & 0x0000_FFFF)
        spread = (spread & 0x0000_FF00_0000_FF00) << 8 | (spread & 0x0000_00FF_0000_00FF)
        spread = (spread & 0x00F0_00F0_00F0_00F0) << 4 | (spread & 0x000F_000F_000F_000F)
        // 0x01 in each byte whose nibble is 10 or more: those get 'a' - '0' - 10 = 39 more.
        let letters = ((spread &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let digits = spread &+ 0x3030_3030_3030_3030 &+ letters &* 39
        // Byte 7 (the most significant digit) first in memory.
        return digits.bigEndian
    }

    private static func hexValue(_ byte: UInt8) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt64(byte - 48)
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt64(byte - 87)
        default: nil
        }
    }
}
