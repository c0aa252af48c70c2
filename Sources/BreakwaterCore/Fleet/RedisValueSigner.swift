// Signs what the proxies write to Redis and checks it on read (`redis.signing_key`, docs/FLEET.md
// "Trust boundary"): an HMAC-SHA256 (RFC 2104) over the Redis key a value is stored under and the
// value's bytes, appended to the value. A value altered, moved to another key, unsigned, or signed
// under another key is refused before any of it is parsed.

/// HMAC-SHA256 under one secret key; the core takes it as a parameter so that it imports no C
/// library (BreakwaterServer provides OpenSSL's).
package protocol HMACSHA256Computing: Sendable {
    /// The HMAC-SHA256 of `first` followed by `second`.
    func hmacSHA256(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> SHA256Digest
}

/// Appends and checks the code that binds a value to the Redis key it is stored under.
///
/// Layout of a signed value: the payload, then 32 bytes of
/// `HMAC-SHA256(key, u32le(len(redisKey)) || redisKey || payload)`. The key's length comes first so
/// that no split of the same bytes into another key and payload has the same code.
package struct RedisValueSigner: Sendable {
    /// Bytes a signature adds to a value.
    package static let codeBytes = 32

    private let hmac: any HMACSHA256Computing

    package init(hmac: any HMACSHA256Computing) {
        self.hmac = hmac
    }

    /// Appends to `value` its code as stored under `redisKey`.
    package func sign(_ value: inout [UInt8], storedUnder redisKey: String) {
        let code = value.withUnsafeBytes { self.code(of: $0, storedUnder: redisKey) }
        code.withUnsafeBytes { value.append(contentsOf: $0) }
    }

    /// The number of payload bytes at the front of `value` when the code after them is right for
    /// `redisKey`; nil when the value is too short to hold a code or the code is wrong.
    package func verifiedPayloadCount(of value: [UInt8], storedUnder redisKey: String) -> Int? {
        let count = value.count - Self.codeBytes
        guard count >= 0 else { return nil }
        let matches = value.withUnsafeBytes { raw in
            let expected = code(of: UnsafeRawBufferPointer(rebasing: raw[..<count]), storedUnder: redisKey)
            var stored: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            withUnsafeMutableBytes(of: &stored) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[count...])) }
            return Self.constantTimeEqual(expected, SHA256Digest(words: stored))
        }
        return matches ? count : nil
    }

    private func code(of payload: UnsafeRawBufferPointer, storedUnder redisKey: String) -> SHA256Digest {
        var framedKey: [UInt8] = []
        framedKey.reserveCapacity(4 + redisKey.utf8.count)
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: redisKey.utf8.count).littleEndian) {
            framedKey.append(contentsOf: $0)
        }
        framedKey.append(contentsOf: redisKey.utf8)
        return framedKey.withUnsafeBytes { hmac.hmacSHA256($0, payload) }
    }

    /// Equality whose time does not depend on where two codes differ: every word is compared,
    /// with no early exit, so a forger cannot learn a code byte by byte from response times.
    static func constantTimeEqual(_ a: SHA256Digest, _ b: SHA256Digest) -> Bool {
        let difference =
            (a.words.0 ^ b.words.0) | (a.words.1 ^ b.words.1) | (a.words.2 ^ b.words.2) | (a.words.3 ^ b.words.3)
        return difference == 0
    }
}
