// A SHA-256 digest as a value: hashable, comparable to APQ's hex form, cheap to store. The 32
// bytes live inline in four words, so a digest (and a cache key) allocates nothing.

/// The 32 bytes of a SHA-256 digest.
package struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    /// The digest's bytes in order, as four words in memory order (bytes 0..<8 first).
    package let words: (UInt64, UInt64, UInt64, UInt64)

    package init(words: (UInt64, UInt64, UInt64, UInt64)) {
        self.words = words
    }

    package init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { $0.copyBytes(from: bytes) }
        self.words = words
    }

    /// Parses 64 hex digits, either case (APQ compares hashes case-insensitively as hex).
    package init?(hex: some StringProtocol) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var count = 0
        let ok = withUnsafeMutableBytes(of: &words) { out -> Bool in
            var high: UInt8?
            for c in hex.utf8 {
                guard count < 32, let value = c.hexDigitValue else { return false }
                if let h = high {
                    out[count] = h << 4 | value
                    count += 1
                    high = nil
                } else {
                    high = value
                }
            }
            return count == 32 && high == nil
        }
        guard ok else { return nil }
        self.words = words
    }

    /// The 32 bytes, in order.
    package var bytes: [UInt8] { withUnsafeBytes(Array.init) }

    /// Calls `body` with the 32 bytes, without copying them to the heap.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var words = self.words
        return try Swift.withUnsafeBytes(of: &words) { try body($0) }
    }

    /// Lower-case hex, the APQ form.
    package var hex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return withUnsafeBytes { raw in
            String(unsafeUninitializedCapacity: 64) { out in
                for (i, byte) in raw.enumerated() {
                    out[2 * i] = digits[Int(byte >> 4)]
                    out[2 * i + 1] = digits[Int(byte & 0x0F)]
                }
                return 64
            }
        }
    }

    package var description: String { hex }

    package static func == (a: SHA256Digest, b: SHA256Digest) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    /// Hashes the first word only: digest bits are already uniformly distributed.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
    }
}

/// Computes SHA-256; the core takes it as a parameter so that it imports no C library
/// (BreakwaterServer provides OpenSSL's).
package protocol SHA256Hashing: Sendable {
    func sha256(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest
}

extension SHA256Hashing {
    package func sha256(_ bytes: [UInt8]) -> SHA256Digest { bytes.withUnsafeBytes { sha256($0) } }

    package func sha256(_ text: String) -> SHA256Digest {
        var text = text
        return text.withUTF8 { sha256(UnsafeRawBufferPointer($0)) }
    }
}
