// What the cached answers of one operation have in common (document, operation name, TTL and
// stale windows, content type, Cache-Control, scope), stored once and shared by those entries.

/// The part of a cache entry that does not vary from one set of variables to the next.
///
/// An entry holds a reference to its shape instead of ten fields of its own: at 1 KiB answers the
/// fields were a fifth of what an entry cost. Shapes are interned (`shared(...)`), so 100k entries of
/// one operation share one shape.
final class CacheEntryShape: Sendable {
    let documentDigest: SHA256Digest
    let operationName: String?
    let ttl: Duration
    let staleWhileRevalidate: Duration
    let staleIfError: Duration
    let contentType: String
    /// `Cache-Control` of a public answer to a GET (SPEC 5.2).
    let publicCacheControl: String
    let isPerUser: Bool

    private init(_ key: Key) {
        documentDigest = key.documentDigest
        operationName = key.operationName
        ttl = key.ttl
        staleWhileRevalidate = key.staleWhileRevalidate
        staleIfError = key.staleIfError
        contentType = key.contentType
        isPerUser = key.isPerUser
        publicCacheControl = CacheResponseHeaders.cacheControl(
            isPublicGET: true, ttl: key.ttl, staleWhileRevalidate: key.staleWhileRevalidate,
            staleIfError: key.staleIfError)
    }

    /// The fields that make a shape, as the intern table's key.
    struct Key: Hashable, Sendable {
        var documentDigest: SHA256Digest
        var operationName: String?
        var ttl: Duration
        var staleWhileRevalidate: Duration
        var staleIfError: Duration
        var contentType: String
        var isPerUser: Bool
    }

    /// The shapes made so far, at most 4096 kept for sharing.
    private static let interned = InternTable<Key, CacheEntryShape>(limit: 4096)

    /// The shape with these fields, shared with every entry made with the same ones.
    static func shared(_ key: Key) -> CacheEntryShape {
        interned.shared(key, make: CacheEntryShape.init)
    }
}
