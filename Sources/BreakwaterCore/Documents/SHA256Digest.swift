// A SHA-256 digest as a value: hashable, comparable to APQ's hex form, cheap to store.

/// The 32 bytes of a SHA-256 digest.
package struct SHA256Digest: Sendable, Hashable, CustomStringConvertible {
    package let bytes: [UInt8]

    package init(bytes: [UInt8]) {
        precondition(bytes.count == 32, "a SHA-256 digest has 32 bytes")
        self.bytes = bytes
    }

    /// Parses 64 hex digits, either case (APQ compares hashes case-insensitively as hex).
    package init?(hex: some StringProtocol) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for i in 0..<32 {
            guard let high = Self.nibble(utf8[2 * i]), let low = Self.nibble(utf8[2 * i + 1]) else { return nil }
            bytes[i] = high << 4 | low
        }
        self.bytes = bytes
    }

    /// Lower-case hex, the APQ form.
    package var hex: String {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    package var description: String { hex }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
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
