// A strong entity tag of Breakwater's own form (`"` + 32 lowercase hex digits + `"`) kept as its
// 16 bytes, so that a cached answer stores 16 bytes for it instead of a 42-byte header line.

/// The 16 bytes behind a quoted 32-hex-digit entity tag; `none` (all zero) when there is none.
package struct CompactETag: Sendable, Equatable {
    package let high: UInt64
    package let low: UInt64

    package static let none = CompactETag(high: 0, low: 0)

    /// Bytes of the quoted tag as written: the quotes and 32 hex digits.
    package static let quotedCount = 34

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The tag `quoted` spells when it has exactly Breakwater's form (lowercase hex), else nil:
    /// any other tag is stored as its text, so that it is written back byte for byte.
    package init?(quoted: String) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        var index = 0
        for byte in quoted.utf8 {
            defer { index += 1 }
            if index == 0 || index == Self.quotedCount - 1 {
                guard byte == UInt8(ascii: "\"") else { return nil }
                continue
            }
            guard index < Self.quotedCount - 1, let value = Self.hexValue(byte) else { return nil }
            if digits < 16 { high = high << 4 | value } else { low = low << 4 | value }
            digits += 1
        }
        guard index == Self.quotedCount, high != 0 || low != 0 else { return nil }
        self.init(high: high, low: low)
    }

    package var isNone: Bool { high == 0 && low == 0 }

    /// Writes the quoted tag (34 bytes) at `start`.
    @inline(__always)
    package func write(at start: UnsafeMutablePointer<UInt8>) {
        start[0] = UInt8(ascii: "\"")
        Self.writeHex(high, at: start + 1)
        Self.writeHex(low, at: start + 17)
        start[33] = UInt8(ascii: "\"")
    }

    /// The quoted tag as text.
    package var quoted: String {
        String(unsafeUninitializedCapacity: Self.quotedCount) { buffer in
            write(at: buffer.baseAddress!)
            return Self.quotedCount
        }
    }

    /// Writes `value`'s 16 lowercase hex digits at `start`, most significant first: each half's
    /// nibbles spread one to a byte, turned into digits eight at a time (no loop, no table).
    @inline(__always)
    private static func writeHex(_ value: UInt64, at start: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(start).storeBytes(of: hexDigits(UInt32(truncatingIfNeeded: value >> 32)), as: UInt64.self)
        UnsafeMutableRawPointer(start + 8).storeBytes(of: hexDigits(UInt32(truncatingIfNeeded: value)), as: UInt64.self)
    }

    /// The 8 hex digits of `value` as the bytes of a little-endian word, first digit lowest.
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
        // The most significant digit first in memory.
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
