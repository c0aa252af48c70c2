// Writes bytes through a pointer into memory sized beforehand: a response or request head is
// serialised with one copy per piece and no capacity checks, where appending each piece to an
// array checked uniqueness and capacity every time (a quarter of a cache hit's own work).

/// A write position in caller-owned memory; the caller reserves enough room first.
package struct ByteCursor {
    package private(set) var position: UnsafeMutablePointer<UInt8>

    package init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

    @inline(__always)
    package mutating func write(_ byte: UInt8) {
        position.initialize(to: byte)
        position += 1
    }

    /// The bytes of a literal, copied at once. A name of its own: given a literal, an overload
    /// `write(_: StaticString)` lost to `write(_: String)` and took the string path.
    @inline(__always)
    package mutating func writeLiteral(_ text: StaticString) {
        let count = text.utf8CodeUnitCount
        position.update(from: text.utf8Start, count: count)
        position += count
    }

    /// `count` bytes from `bytes`.
    @inline(__always)
    package mutating func write(_ bytes: UnsafeRawPointer, count: Int) {
        UnsafeMutableRawPointer(position).copyMemory(from: bytes, byteCount: count)
        position += count
    }

    /// Moves past `count` bytes the caller stored at `position` itself.
    @inline(__always)
    package mutating func skip(_ count: Int) { position += count }

    /// `text`'s UTF-8 bytes, copied at once (`String.withUTF8Bytes`: small strings too).
    @inline(__always)
    package mutating func write(_ text: String) {
        position += text.withUTF8Bytes { [position] bytes in
            if let base = bytes.baseAddress { position.update(from: base, count: bytes.count) }
            return bytes.count
        }
    }

    /// The decimal digits of a non-negative `value` (at most 20 bytes).
    package mutating func writeDecimal(_ value: Int) {
        position += Self.putDecimal(value, at: position)
    }

    /// Writes the decimal digits of a non-negative `value` at `start` (at most 20 bytes) and
    /// says how many (shared with the server's head writers): two digits at a time from a table.
    package static func putDecimal(_ value: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
        var rest = UInt64(max(0, value))
        var digits = 1
        var power: UInt64 = 10
        while rest >= power {
            digits += 1
            if digits == 20 { break }  // 10^19 is the last power below UInt64.max
            power &*= 10
        }
        let pairs = digitPairs.utf8Start
        var index = digits
        while rest >= 100 {
            let pair = Int(rest % 100) &* 2
            rest /= 100
            index &-= 2
            start[index] = pairs[pair]
            start[index &+ 1] = pairs[pair &+ 1]
        }
        if rest >= 10 {
            start[0] = pairs[Int(rest) &* 2]
            start[1] = pairs[Int(rest) &* 2 &+ 1]
        } else {
            start[0] = UInt8(truncatingIfNeeded: 48 &+ rest)
        }
        return digits
    }

    /// "00" to "99", two bytes each.
    private static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
}

extension String {
    /// The decimal digits of a non-negative `value`. `String(value)` took the generic integer
    /// formatting (about 250 instructions for an `Age`); up to 15 digits this is a small string,
    /// made without an allocation.
    package static func decimal(_ value: Int) -> String {
        // Asked for more than 15 bytes, the initializer allocates whatever it is given back.
        let capacity = value < 1_000_000_000_000_000 ? 15 : 20
        return String(unsafeUninitializedCapacity: capacity) { ByteCursor.putDecimal(value, at: $0.baseAddress!) }
    }
}
