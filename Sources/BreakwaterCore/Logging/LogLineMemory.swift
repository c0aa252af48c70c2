// What one writer of access-log lines (an event loop) keeps from one line to the next, so that
// the pieces a run of hits repeats are made once: the current second's text and the hex digits
// of the last document hash (a popular operation's hash is on line after line).

/// A loop's memory between access-log lines.
package struct LogLineMemory: Sendable {
    package var times = LogTimeCache()
    /// The digest `hex` spells; nil before the first.
    private var digest: SHA256Digest?
    private var hex: (SIMD32<UInt8>, SIMD32<UInt8>) = (.zero, .zero)

    package init() {}

    /// Writes the 64 hex digits of `digest`, made only when it differs from the last one.
    package mutating func writeHex(_ digest: SHA256Digest, to line: inout ByteCursor) {
        if digest != self.digest {
            withUnsafeMutableBytes(of: &hex) { bytes in
                var spelled = ByteCursor(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                spelled.writeHex(digest)
            }
            self.digest = digest
        }
        withUnsafeBytes(of: &hex) { line.write($0.baseAddress!, count: 64) }
    }
}
