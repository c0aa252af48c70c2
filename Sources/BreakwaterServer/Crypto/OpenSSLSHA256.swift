// SHA-256 computed by OpenSSL's own SHA-256 functions (not EVP: see COpenSSL_sha256).

import BreakwaterCore
import COpenSSL

/// The SHA-256 that the core uses, computed by OpenSSL.
package struct OpenSSLSHA256: SHA256Hashing {
    package init() {}

    package func sha256(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { out in
            COpenSSL_sha256(bytes.baseAddress, bytes.count, out.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return SHA256Digest(words: words)
    }
}
