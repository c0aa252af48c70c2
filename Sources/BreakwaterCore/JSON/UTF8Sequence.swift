// The one rule for a multi-byte UTF-8 sequence inside a JSON string (RFC 3629, table 3-7 of
// Unicode), shared by the JSON parser and the answer stripper.

/// Well-formed multi-byte UTF-8 sequences.
package enum UTF8Sequence {
    /// The length of the well-formed sequence whose lead byte is at `index`, or nil for an overlong
    /// form, an encoded surrogate, a code point above U+10FFFF, a stray byte or a truncated sequence.
    @inline(__always)
    package static func length<Bytes: RandomAccessCollection<UInt8>>(at index: Int, in bytes: Bytes) -> Int?
    where Bytes.Index == Int {
        let lead = bytes[index]
        let (length, secondRange): (Int, ClosedRange<UInt8>) =
            switch lead {
            case 0xC2...0xDF: (2, 0x80...0xBF)
            case 0xE0: (3, 0xA0...0xBF)
            case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
            case 0xED: (3, 0x80...0x9F)
            case 0xF0: (4, 0x90...0xBF)
            case 0xF1...0xF3: (4, 0x80...0xBF)
            case 0xF4: (4, 0x80...0x8F)
            default: (0, 0...0)
            }
        guard length > 0, index + length <= bytes.endIndex, secondRange ~= bytes[index + 1],
            (2..<length).allSatisfy({ 0x80...0xBF ~= bytes[index + $0] })
        else { return nil }
        return length
    }
}
