// Whether a log-line string can be copied as it is (no JSON escape needed; one plain word in the
// text format), decided eight bytes at a time with word arithmetic instead of a byte loop.

/// Which strings a log line may copy as they are, found eight bytes at a time.
package enum LogLineScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` is below `limit` (exact for `limit` <= 0x80).
    @inline(__always)
    private static func hasByte(_ word: UInt64, below limit: UInt8) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    @inline(__always)
    private static func hasByte(_ word: UInt64, equalTo value: UInt8) -> Bool {
        hasByte(word ^ (ones &* UInt64(value)), below: 1)
    }

    /// No control byte, `"` or `\`: the bytes go between quotes as they are.
    package static func isJSONSafe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        scan(bytes) { word in
            !(hasByte(word, below: 0x20) || hasByte(word, equalTo: UInt8(ascii: "\""))
                || hasByte(word, equalTo: UInt8(ascii: "\\")))
        }
    }

    /// One word of printable ASCII without `"`, `\` or `=`.
    package static func isPlainWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        return scan(bytes) { word in
            !(word & highs != 0 || hasByte(word, below: 0x21) || hasByte(word, equalTo: 0x7F)
                || hasByte(word, equalTo: UInt8(ascii: "\"")) || hasByte(word, equalTo: UInt8(ascii: "\\"))
                || hasByte(word, equalTo: UInt8(ascii: "=")))
        }
    }

    /// Whether every eight-byte word of `bytes` passes `word`: whole words, then the last eight
    /// bytes (overlapping, checked again), or a short string padded with a byte every check passes.
    @inline(__always)
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(start)
        let count = bytes.count
        guard count >= 8 else {
            var padded: UInt64 = ones &* UInt64(UInt8(ascii: "a"))
            withUnsafeMutableBytes(of: &padded) { $0.baseAddress!.copyMemory(from: raw, byteCount: count) }
            return word(padded)
        }
        var offset = 0
        while offset + 8 <= count {
            guard word(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) else { return false }
            offset += 8
        }
        return offset == count || word(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
    }
}
