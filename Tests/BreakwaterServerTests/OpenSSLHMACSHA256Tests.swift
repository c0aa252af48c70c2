// HMAC-SHA256 through OpenSSL's SHA-256 with prepared pads, against RFC 4231's published vectors
// and OpenSSL's own HMAC() on random keys and messages.

import BreakwaterCore
import BreakwaterServer
import BreakwaterFixtures
import COpenSSL
import Testing

struct OpenSSLHMACSHA256Tests {
    private static func bytes(hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            out.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    private static func code(key: [UInt8], _ first: [UInt8], _ second: [UInt8] = []) -> String {
        first.withUnsafeBytes { a in
            second.withUnsafeBytes { b in OpenSSLHMACSHA256(key: key).hmacSHA256(a, b).hex }
        }
    }

    // RFC 4231 section 4: test cases 1, 2, 3, 4, 6 (a key longer than a block) and 7.
    @Test(arguments: [
        (
            String(repeating: "0b", count: 20), Array("Hi There".utf8),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        ),
        (
            "4a656665", Array("what do ya want for nothing?".utf8),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        ),
        (
            String(repeating: "aa", count: 20), [UInt8](repeating: 0xdd, count: 50),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"
        ),
        (
            "0102030405060708090a0b0c0d0e0f10111213141516171819", [UInt8](repeating: 0xcd, count: 50),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"
        ),
        (
            String(repeating: "aa", count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
        (
            String(repeating: "aa", count: 131),
            Array(
                ("This is a test using a larger than block-size key and a larger than block-size data. The key needs"
                    + " to be hashed before being used by the HMAC algorithm.").utf8),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"
        ),
    ])
    func codeMatchesPublishedVector(keyHex: String, message: [UInt8], expected: String) {
        let key = Self.bytes(hex: keyHex)
        #expect(Self.code(key: key, message) == expected)
        // Split anywhere, the two parts are one message.
        for split in [0, 1, message.count / 2, message.count] {
            #expect(Self.code(key: key, Array(message[..<split]), Array(message[split...])) == expected)
        }
    }

    @Test func codeMatchesOpenSSLsHMACOnRandomKeysAndMessages() {
        var generator = SplitMix64(seed: 4231)
        for _ in 0..<200 {
            let key = (0..<Int(generator.next() % 150)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let message = (0..<Int(generator.next() % 2_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            var reference = [UInt8](repeating: 0, count: 32)
            var length: UInt32 = 0
            key.withUnsafeBytes { k in
                message.withUnsafeBytes { m in
                    _ = HMAC(
                        EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress?.assumingMemoryBound(to: UInt8.self),
                        m.count, &reference, &length)
                }
            }
            #expect(length == 32)
            let split = message.isEmpty ? 0 : Int(generator.next() % UInt64(message.count))
            let ours = Self.code(key: key, Array(message[..<split]), Array(message[split...]))
            #expect(ours == SHA256Digest(bytes: reference).hex)
        }
    }
}
