// A request's id (README "GraphQL over HTTP rules"): the client's own `X-Request-Id`, or one
// Breakwater made, kept as its two random words and spelled in hex only where it is written.
// Every answer carries the id, and spelling a made one into a String of its own allocated
// storage for 32 bytes on each request, freed again once the answer was sent.

/// The id of one client request, as the client sent it or as it was made.
package struct RequestID: Sendable, Equatable {
    /// The client's id; nil for a made one.
    private let offered: String?
    /// A made id's 128 bits, spelled as 32 lower-case hex digits, `high` first.
    private let high: UInt64
    private let low: UInt64

    /// The id `text`, as the client sent it.
    package init(_ text: String) {
        offered = text
        high = 0
        low = 0
    }

    /// A made id: `high` and `low` in hex.
    init(high: UInt64, low: UInt64) {
        offered = nil
        self.high = high
        self.low = low
    }

    /// A made id's length: two words in hex.
    private static let madeLength = 32

    /// The id's bytes.
    package var utf8Count: Int { offered?.utf8.count ?? Self.madeLength }

    /// The id as a String (the upstream field, the access log).
    package var text: String {
        if let offered { return offered }
        return String(unsafeUninitializedCapacity: Self.madeLength) { bytes in
            write(at: bytes.baseAddress!)
        }
    }

    /// Writes the id's `utf8Count` bytes at `start`; returns how many.
    package func write(at start: UnsafeMutablePointer<UInt8>) -> Int {
        guard let offered else {
            let raw = UnsafeMutableRawPointer(start)
            raw.storeBytes(of: Self.hexDigits(UInt32(truncatingIfNeeded: high >> 32)), toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: Self.hexDigits(UInt32(truncatingIfNeeded: high)), toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: Self.hexDigits(UInt32(truncatingIfNeeded: low >> 32)), toByteOffset: 16, as: UInt64.self)
            raw.storeBytes(of: Self.hexDigits(UInt32(truncatingIfNeeded: low)), toByteOffset: 24, as: UInt64.self)
            return Self.madeLength
        }
        return offered.withUTF8Bytes { bytes in
            if let base = bytes.baseAddress { start.update(from: base, count: bytes.count) }
            return bytes.count
        }
    }

    /// The eight lower-case hex digits of `value`, most significant first, as a word to store
    /// (little-endian): each nibble spread into a byte of its own, then turned into its digit in
    /// all eight bytes at once (a table lookup a digit cost about 290 instructions an id).
    private static func hexDigits(_ value: UInt32) -> UInt64 {
        var nibbles = UInt64(value)
        nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // 1 in each byte whose nibble is 10 or more: its digit is a letter, 39 after "0" + 10.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let digits = nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
        // The most significant nibble sits in the highest byte: swapped to be stored first.
        return digits.byteSwapped.littleEndian
    }
}
