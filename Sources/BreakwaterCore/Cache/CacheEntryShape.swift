// What the cached answers of one operation have in common (document, operation name, TTL and
// stale windows and what the TTL was decided from, content type, Cache-Control, scope), stored once
// and shared by those entries.

/// The part of a cache entry that does not vary from one set of variables to the next.
///
/// An entry holds a reference to its shape instead of ten fields of its own: at 1 KiB answers the
/// fields were a fifth of what an entry cost. Shapes are interned (`shared(...)`), so 100k entries of
/// one operation share one shape.
final class CacheEntryShape: Sendable {
    /// The fields that make a shape, and the intern table's key.
    struct Fields: Hashable, Sendable {
        var documentDigest: SHA256Digest
        var operationName: String?
        var ttl: Duration
        var staleWhileRevalidate: Duration
        var staleIfError: Duration
        var contentType: String
        var isPerUser: Bool
        /// What the TTL was decided from besides the settings; nil when not known (an entry read
        /// from the fleet tier or a cache snapshot).
        var ttlBasis: TTLBasis?
    }

    let fields: Fields
    /// `Cache-Control` of a fresh public answer to a GET (docs/CACHING.md), made once for all the entries.
    let publicCacheControl: String
    /// `Cache-Control` of a stale public answer to a GET: `max-age=0` with the stale windows, so
    /// no cache in front keeps it as fresh.
    let staleCacheControl: String
    /// The same three texts as bytes this shape holds, for answers that carry them without
    /// counting references (an answer that carries them keeps the shape alive meanwhile).
    let stableTexts: CacheEntryTexts
    // Written once here, freed in deinit: never changed while the shape is shared.
    private nonisolated(unsafe) let textBytes: UnsafeMutablePointer<UInt8>

    private init(_ fields: Fields) {
        self.fields = fields
        publicCacheControl = CacheResponseHeaders.cacheControl(
            isPublicGET: true, ttl: fields.ttl, staleWhileRevalidate: fields.staleWhileRevalidate,
            staleIfError: fields.staleIfError)
        staleCacheControl = CacheResponseHeaders.cacheControl(
            isPublicGET: true, ttl: .zero, staleWhileRevalidate: fields.staleWhileRevalidate,
            staleIfError: fields.staleIfError)
        // The three texts in one allocation, freed with the shape.
        let texts = [publicCacheControl, staleCacheControl, fields.contentType].map { Array($0.utf8) }
        let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, texts.reduce(0) { $0 + $1.count }))
        var views: [StableText] = []
        var offset = 0
        for text in texts {
            text.withUnsafeBufferPointer { if let base = $0.baseAddress { (bytes + offset).initialize(from: base, count: $0.count) } }
            views.append(StableText(start: bytes + offset, count: text.count))
            offset += text.count
        }
        textBytes = bytes
        stableTexts = CacheEntryTexts(publicCacheControl: views[0], staleCacheControl: views[1], contentType: views[2])
    }

    deinit { textBytes.deallocate() }

    /// The shapes made so far, at most 4096 kept for sharing.
    private static let interned = InternTable<Fields, CacheEntryShape>(limit: 4096)

    /// The shape with these fields, shared with every entry made with the same ones.
    static func shared(_ fields: Fields) -> CacheEntryShape {
        interned.shared(fields, make: CacheEntryShape.init)
    }
}

/// An entry's `Cache-Control` values and content type as texts its shape holds.
package struct CacheEntryTexts: Sendable, Equatable {
    package var publicCacheControl: StableText
    package var staleCacheControl: StableText
    package var contentType: StableText
}
