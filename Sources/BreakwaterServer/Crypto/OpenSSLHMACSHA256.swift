// HMAC-SHA256 under one key, computed by OpenSSL's SHA-256 with the key's pads hashed once (see
// COpenSSL_hmac_sha256_prepare): what signs and checks the values the fleet keeps in Redis.

import BreakwaterCore
import COpenSSL

/// The HMAC-SHA256 that the core's `RedisValueSigner` uses, computed by OpenSSL.
package struct OpenSSLHMACSHA256: HMACSHA256Computing {
    /// The key's inner and outer pads, already hashed; copied, never changed, by each code.
    private let prepared: COpenSSL_hmac_sha256_key

    package init(key: [UInt8]) {
        var prepared = COpenSSL_hmac_sha256_key()
        key.withUnsafeBytes { COpenSSL_hmac_sha256_prepare(&prepared, $0.baseAddress, $0.count) }
        self.prepared = prepared
    }

    package func hmacSHA256(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> SHA256Digest {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { out in
            withUnsafePointer(to: prepared) { prepared in
                COpenSSL_hmac_sha256(
                    prepared, first.baseAddress, first.count, second.baseAddress, second.count,
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return SHA256Digest(words: words)
    }
}
