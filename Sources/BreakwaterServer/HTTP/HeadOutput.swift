// A write position in a head's reserved block whose small copies inline. `ByteCursor` does the
// same for the log in BreakwaterCore, but across the module boundary each of its calls cost
// about 20-40 instructions around a copy of a few bytes, and a proxied answer's head made 48 of
// them; the head writers of this module write through this type instead.

import BreakwaterCore

/// Writes bytes into memory the caller reserved (`OutputQueue.append(bound:)` counts the room).
struct HeadOutput {
    private(set) var position: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) { position = start }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        position.initialize(to: byte)
        position += 1
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        position.update(from: base, count: bytes.count)
        position += bytes.count
    }

    @inline(__always)
    mutating func put(_ literal: StaticString) {
        put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A native string's own bytes; a small one's from the stack copy `withUTF8` makes (what
    /// `String.withUTF8Bytes` does, here where it inlines: that one is generic in another module).
    @inline(__always)
    mutating func put(_ text: String) {
        let copied: Int? = text.utf8.withContiguousStorageIfAvailable { [position] bytes in
            if let base = bytes.baseAddress { position.update(from: base, count: bytes.count) }
            return bytes.count
        }
        if let copied {
            position += copied
        } else {
            var small = text
            small.withUTF8 { put($0) }
        }
    }

    /// The id stamped on `response` (its `stampedIDCount` bytes).
    @inline(__always)
    mutating func put(stampedIDOf response: HTTPResponse) {
        position += response.writeStampedID(at: position)
    }

    /// A prebuilt answer's head (at most its `headBound` bytes).
    @inline(__always)
    mutating func put(prebuilt: PrebuiltResponse) {
        position += prebuilt.writeHead(at: position)
    }

    /// The decimal digits of a non-negative `value` (at most 20 bytes).
    mutating func putDecimal(_ value: Int) {
        position += ByteCursor.putDecimal(value, at: position)
    }
}
