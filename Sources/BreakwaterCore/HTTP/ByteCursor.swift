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
    /// says how many (shared with the server's head writers).
    package static func putDecimal(_ value: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        rest = value
        for index in stride(from: digits - 1, through: 0, by: -1) {
            start[index] = UInt8(48 + rest % 10)
            rest /= 10
        }
        return digits
    }
}
