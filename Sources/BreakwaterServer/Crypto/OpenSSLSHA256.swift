// SHA-256 through OpenSSL's EVP interface.

import BreakwaterCore
import COpenSSL

/// The SHA-256 that the core uses, computed by OpenSSL.
package struct OpenSSLSHA256: SHA256Hashing {
    package init() {}

    package func sha256(_ bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return SHA256Digest(bytes: digest)
    }
}
