// The byte encoding of request header values that goes into cache keys (per-user scope, keyed
// forwarded headers): every variable-length part length-prefixed, so no value can pose as a
// boundary, and a count before the values, so an absent header (0) differs from an empty one.

extension Array where Element == UInt8 {
    /// Appends `length` as 4 big-endian bytes.
    package mutating func appendLength(_ length: Int) {
        let length = UInt32(truncatingIfNeeded: length)
        self += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
    }

    /// Appends the length of `bytes`, then `bytes`.
    package mutating func appendField(_ bytes: some Collection<UInt8>) {
        appendLength(bytes.count)
        self += bytes
    }

    /// Appends how many `values` there are, then each as a field.
    package mutating func appendValues(_ values: [String]) {
        appendLength(values.count)
        for value in values { appendField(value.utf8) }
    }
}
