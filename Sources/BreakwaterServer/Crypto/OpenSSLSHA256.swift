// SHA-256 through OpenSSL's EVP interface.

import BreakwaterCore
import COpenSSL

/// The SHA-256 that the core uses, computed by OpenSSL.
package struct OpenSSLSHA256: SHA256Hashing {
    package init() {}

    package func sha256(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var length: UInt32 = 0
        let ok = withUnsafeMutableBytes(of: &words) { out in
            EVP_Digest(
                bytes.baseAddress, bytes.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self), &length,
                EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return SHA256Digest(words: words)
    }
}
