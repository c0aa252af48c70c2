// `cache.tag_header` (docs/SCHEMA.md, "Tags for a CDN or Varnish in front"): the tags of a stored
// entry in the header a CDN or Varnish in front purges by (Fastly's Surrogate-Key, Cloudflare's
// Cache-Tag, Varnish's xkey), made once when the entry is stored, never per hit.

/// The header name and how tags are joined in it.
package struct TagHeader: Sendable, Equatable {
    /// Bytes a value may reach: Fastly and Cloudflare take 16 KiB of tags per answer.
    package static let maxValueBytes = 16_000

    package let name: String
    /// `,` for Cache-Tag, a space for Surrogate-Key and xkey.
    package let separator: Character

    /// Nil for "" (no header); the loader accepts only the names of `Configuration.tagHeaders`.
    package init?(configured name: String) {
        guard !name.isEmpty else { return nil }
        self.name = name
        separator = name.lowercased() == "cache-tag" ? "," : " "
    }

    /// `op:<name>` (when named), `hash:<hex>`, then the type tags, then the `Type:id` tags, as far as
    /// `maxValueBytes` allows. Only a tag of printable ASCII other than the separators (0x21-0x7E
    /// but ",") is carried: a space or comma would split it, and a control or non-ASCII byte is
    /// one a CDN may refuse or split on (U+0085 is a line break to some). Any other tag is left
    /// out (a purge by it still reaches Breakwater's own entries).
    package func value(operationName: String?, digest: SHA256Digest, tags: [String]) -> String {
        var value = ""
        value.reserveCapacity(96 + tags.count * 16)
        func append(_ tag: String) {
            guard Self.isCarried(tag), value.utf8.count + 1 + tag.utf8.count <= Self.maxValueBytes
            else { return }
            if !value.isEmpty { value.append(separator) }
            value += tag
        }
        if let operationName { append("op:" + operationName) }
        append("hash:" + digest.hex)
        // The unchecked mark is Breakwater's own: a CDN in front has no use for it.
        for tag in tags where !tag.contains(":") && tag != EntityTags.unchecked { append(tag) }
        for tag in tags where tag.contains(":") { append(tag) }
        return value
    }

    /// Whether `tag` can be carried in the header (and so be purged in a cache in front).
    package static func isCarried(_ tag: String) -> Bool { !tag.isEmpty && tag.utf8.allSatisfy(isCarried) }

    /// A byte a tag may hold in the header: visible ASCII except the comma.
    private static func isCarried(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: ",") }

    /// The header field of an entry: nil for per-user entries, which no cache in front may keep.
    package func field(for entry: (operationName: String?, digest: SHA256Digest, tags: [String]), isPerUser: Bool)
        -> HTTPHeaderField?
    {
        guard !isPerUser else { return nil }
        return HTTPHeaderField(name: name, value: value(operationName: entry.operationName, digest: entry.digest, tags: entry.tags))
    }
}

extension CacheEntry {
    /// This entry with `tagHeader`'s field, for an entry from the fleet's fleet tier (whose
    /// encoding does not carry the header); itself when it has the field already or none is due.
    package func withTagHeader(_ tagHeader: TagHeader?) -> CacheEntry {
        guard let tagHeader, !extraHeaders.contains(where: { $0.name == tagHeader.name }),
            let field = tagHeader.field(for: (operationName, documentDigest, tags), isPerUser: isPerUser)
        else { return self }
        return CacheEntry.make(
            key: key, body: body, contentType: contentType, etag: etag, extraHeaders: extraHeaders + [field],
            storedAt: storedAt, storedAtWallClock: storedAtWallClock, ttl: ttl,
            staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError, documentDigest: documentDigest,
            operationName: operationName, tags: tags, isPerUser: isPerUser, ttlBasis: ttlBasis)
    }
}
