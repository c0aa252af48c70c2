// The response cache's key (README "The response cache"): document hash + operationName + canonical variables
// + scope, folded into one SHA-256 so that a key is small, fixed-size and cheap to compare.

/// The identity of one cached response: the SHA-256 of an unambiguous encoding of its parts.
///
/// Hashing uses the digest's first 8 bytes only: they are already uniformly distributed, so
/// feeding all 32 to the hasher would cost more and spread no better (`_rawHashValue(seed:)`).
package struct CacheKey: Hashable, Sendable, CustomStringConvertible {
    package let digest: SHA256Digest

    /// Wraps a digest already computed by `make` (for example one read back from a fleet tier).
    package init(digest: SHA256Digest) {
        self.digest = digest
    }

    /// The digest's first 8 bytes (32 bytes a key, nothing stored beside the digest).
    @inline(__always)
    package var prefix: UInt64 { digest.words.0 }

    /// The key of a response, from the parts README "The response cache" names.
    ///
    /// Every variable-length field is preceded by its length and every optional one by a
    /// presence byte, so that no two different inputs encode alike: `("ab", "c")` differs from
    /// `("a", "bc")`, a nil operation name from `""`, and a nil (public) scope from an empty one.
    package static func make(
        document: SHA256Digest,
        operationName: String?,
        canonicalVariables: [UInt8],
        scope: [UInt8]?,
        varying: [UInt8]? = nil,
        hasher: any SHA256Hashing
    ) -> CacheKey {
        var material: [UInt8] = []
        // Version, document, two optional fields (presence + length) and one length, then the bytes.
        material.reserveCapacity(
            1 + 32 + 3 * 9 + 8 + (operationName?.utf8.count ?? 0) + canonicalVariables.count + (scope?.count ?? 0)
                + (varying?.count ?? 0)
        )
        // A version byte, so that a future change of layout can never reuse old keys.
        material.append(1)
        document.withUnsafeBytes { material.append(contentsOf: $0) }
        appendOptionalText(operationName, to: &material)
        appendField(canonicalVariables, to: &material)
        appendOptional(scope, to: &material)
        // Keyed forwarded headers (Accept-Language...), only when the request carries any, so
        // that the usual key is the same as before they existed.
        if let varying { appendOptional(varying, to: &material) }
        return CacheKey(digest: hasher.sha256(material))
    }

    package static func == (lhs: CacheKey, rhs: CacheKey) -> Bool {
        lhs.prefix == rhs.prefix && lhs.digest == rhs.digest
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(prefix)
    }

    /// What a `Dictionary` or `Set` hashes a key with, without running `Hasher` (a SipHash round
    /// and its finalisation, about 160 instructions a lookup, three lookups a coalesced miss):
    /// the digest's first word, uniformly spread already, mixed with the table's seed and a
    /// secret of this process by a bijective finaliser (murmur3's) whose low bits, the bucket,
    /// depend on every bit. Equal keys have equal prefixes, so it agrees with `==`; the secret
    /// keeps a client from aiming keys at one bucket, as `Hasher`'s random seed did.
    package func _rawHashValue(seed: Int) -> Int {
        var mixed = prefix ^ UInt64(UInt(bitPattern: seed)) ^ Self.hashSecret
        mixed = (mixed ^ (mixed >> 33)) &* 0xff51_afd7_ed55_8ccd
        mixed = (mixed ^ (mixed >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        return Int(truncatingIfNeeded: mixed ^ (mixed >> 33))
    }

    private static let hashSecret = UInt64.random(in: .min ... .max)

    /// Which shard of a table keyed by cache keys holds this one (`InFlightTable`): the digest's
    /// second 8 bytes, as evenly spread as the first and not the ones the hasher is fed.
    @inline(__always)
    package var shardHash: Int { Int(truncatingIfNeeded: digest.words.1) }

    package var description: String { digest.hex }

    private static func appendOptional(_ field: [UInt8]?, to material: inout [UInt8]) {
        guard let field else {
            material.append(0)
            return
        }
        material.append(1)
        appendField(field, to: &material)
    }

    /// `appendOptional` of the text's UTF-8 bytes, without copying them into an array first.
    private static func appendOptionalText(_ text: String?, to material: inout [UInt8]) {
        guard let text else {
            material.append(0)
            return
        }
        material.append(1)
        appendLength(text.utf8.count, to: &material)
        material.append(contentsOf: text.utf8)
    }

    /// Appends the field's length as 8 little-endian bytes, then the field.
    private static func appendField(_ field: [UInt8], to material: inout [UInt8]) {
        appendLength(field.count, to: &material)
        material.append(contentsOf: field)
    }

    /// A field's length as 8 little-endian bytes.
    private static func appendLength(_ count: Int, to material: inout [UInt8]) {
        let length = UInt64(count)
        for shift in stride(from: 0, to: 64, by: 8) {
            material.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
        }
    }
}
