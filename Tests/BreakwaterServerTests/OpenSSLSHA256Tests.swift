// SHA-256 through OpenSSL against published vectors (FIPS 180-2) and Apollo's APQ example.

import BreakwaterCore
import BreakwaterServer
import Testing

struct OpenSSLSHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        // The document of Apollo's APQ documentation example.
        ("{__typename}", "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"),
    ])
    func digestMatchesPublishedVector(input: String, expected: String) {
        #expect(OpenSSLSHA256().sha256(input).hex == expected)
    }

    @Test func millionAsMatchesPublishedVector() {
        let input = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(
            OpenSSLSHA256().sha256(input).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func hexParsingIsCaseInsensitiveAndStrict() {
        let lower = "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"
        #expect(SHA256Digest(hex: lower.uppercased()) == SHA256Digest(hex: lower))
        #expect(SHA256Digest(hex: lower)?.hex == lower)
        #expect(SHA256Digest(hex: String(lower.dropLast())) == nil)
        #expect(SHA256Digest(hex: String(lower.dropLast()) + "g") == nil)
    }
}
