// The core tests' own SHA-256 and HMAC-SHA256 (Support/SoftwareSHA256.swift) against the same
// published vectors the server's tests check OpenSSL's against: FIPS 180-2 and RFC 4231.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct SoftwareSHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        // 55 and 56 bytes: the length still fits the last block, and no longer does.
        (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        ("{__typename}", "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"),
    ])
    func digestMatchesPublishedVector(input: String, expected: String) {
        #expect(SoftwareSHA256().sha256(input).hex == expected)
    }

    // RFC 4231 section 4, test cases 2 and 6 (a key longer than a block).
    @Test(arguments: [
        ([UInt8]("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (
            [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        ),
    ])
    func codeMatchesPublishedVector(key: [UInt8], message: String, expected: String) {
        let bytes = Array(message.utf8)
        for split in [0, 3, bytes.count] {
            let code = Array(bytes[..<split]).withUnsafeBytes { a in
                Array(bytes[split...]).withUnsafeBytes { b in SoftwareHMACSHA256(key: key).hmacSHA256(a, b) }
            }
            #expect(code.hex == expected)
        }
    }
}
