// A String's UTF-8 bytes lent in place, whatever its storage: a native string's buffer, or the
// stack copy `withUTF8` makes of a small one (up to 15 bytes, stored inside the String value,
// whose UTF-8 view has no contiguous storage to lend). Most header names and values, client
// addresses and operation names are small; the UTF-8 view's iterator went byte by byte.

extension String {
    /// Calls `body` with the string's UTF-8 bytes, without copying them to the heap.
    @inline(__always)
    package func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = self
        return copy.withUTF8(body)
    }
}
