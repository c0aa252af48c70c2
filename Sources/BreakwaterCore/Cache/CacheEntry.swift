// One cached response with what the store needs to serve, age, purge and bound it.

/// An immutable cached response, shared by reference between the store and every request it serves.
///
/// A hit hands out this object, so the body is never copied on the lookup path.
package final class CacheEntry: Sendable {
    /// Bytes charged for each entry beyond the sizes counted one by one below: the object itself,
    /// its SIEVE slot, its dictionary slot, its places in the operation and document indexes, and
    /// the allocator's share. Measured, not guessed: `bench/memory.sh` saw about 870 resident
    /// bytes per 1 KiB entry beyond its body (100k entries), of which about 120 are counted one
    /// by one; so that `cache.max_bytes` bounds the process's memory, not only the bodies.
    package static let fixedOverhead = 768

    /// Bytes charged for each tag beyond its text: its string storage and its tag-index slot.
    package static let perTagOverhead = 48

    package let key: CacheKey
    package let body: [UInt8]
    package let contentType: String
    /// A strong entity tag, quoted, as `makeETag(body:hasher:)` makes it.
    package let etag: String
    /// When the origin's answer was stored, on this process's monotonic clock (ages, expiry).
    package let storedAt: ContinuousClock.Instant
    /// The same instant on the wall clock, which other hosts of a fleet understand too.
    package let storedAtWallClock: WallClockTime
    package let ttl: Duration
    package let staleWhileRevalidate: Duration
    package let staleIfError: Duration
    package let documentDigest: SHA256Digest
    package let operationName: String?
    /// Entity tags, `Type:id` and `Type` (SPEC section 5.3).
    package let tags: [String]
    package let isPerUser: Bool
    /// `cache.tag_header` and its value for this entry (operation, hash and entity tags), made
    /// once at store time and appended to every answer from the entry; nil when not configured.
    package let tagHeader: (name: String, value: String)?
    /// The body's length as a `Content-Length` value, formatted once (not on every hit).
    package let contentLength: String
    /// What the entry counts against the store's memory bound: its body plus `fixedOverhead`, its
    /// key's and document's digests, its strings, and each tag with `perTagOverhead`.
    package let cost: Int

    package init(
        key: CacheKey,
        body: [UInt8],
        contentType: String,
        etag: String,
        storedAt: ContinuousClock.Instant,
        storedAtWallClock: WallClockTime = WallClockTime(millisecondsSinceEpoch: 0),
        ttl: Duration,
        staleWhileRevalidate: Duration,
        staleIfError: Duration,
        documentDigest: SHA256Digest,
        operationName: String?,
        tags: [String],
        isPerUser: Bool,
        tagHeader: (name: String, value: String)? = nil
    ) {
        self.key = key
        self.body = body
        self.contentType = contentType
        self.etag = etag
        self.storedAt = storedAt
        self.storedAtWallClock = storedAtWallClock
        self.ttl = ttl
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
        self.documentDigest = documentDigest
        self.operationName = operationName
        self.tags = tags
        self.isPerUser = isPerUser
        self.tagHeader = tagHeader
        contentLength = String(body.count)
        var cost = body.count + Self.fixedOverhead + 2 * 32
        cost += contentType.utf8.count + etag.utf8.count + (operationName?.utf8.count ?? 0)
        for tag in tags { cost += tag.utf8.count + Self.perTagOverhead }
        if let tagHeader { cost += tagHeader.value.utf8.count }
        self.cost = cost
    }

    /// The strong entity tag of `body`: the first 16 bytes of its SHA-256 in hex, quoted.
    package static func makeETag(body: [UInt8], hasher: any SHA256Hashing) -> String {
        "\"\(hasher.sha256(body).hex.prefix(32))\""
    }

    /// The instant the entry stops being fresh, `staleSince` when a soft purge came earlier.
    package func expiresAt(staleSince: ContinuousClock.Instant?) -> ContinuousClock.Instant {
        let end = storedAt + ttl
        guard let staleSince else { return end }
        return min(end, staleSince)
    }

    /// The instant from which the entry can serve nobody, not even a request whose origin failed.
    package func removableAt(staleSince: ContinuousClock.Instant?) -> ContinuousClock.Instant {
        expiresAt(staleSince: staleSince) + max(staleWhileRevalidate, staleIfError)
    }
}

extension CacheEntry {
    /// A new entry for an origin answer the policy allows storing, stored at `now` on both clocks.
    package static func make(
        key: CacheKey, answer: HTTPResponse, ttl: Duration, tags: [String], operation: PreparedOperation,
        isPerUser: Bool, settings: Configuration.Cache, now: ContinuousClock.Instant, wallNow: WallClockTime,
        hasher: any SHA256Hashing, tagHeader: (name: String, value: String)? = nil
    ) -> CacheEntry {
        CacheEntry(
            key: key, body: answer.body, contentType: interned(answer.headers["Content-Type"]),
            etag: makeETag(body: answer.body, hasher: hasher), storedAt: now, storedAtWallClock: wallNow, ttl: ttl,
            staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            documentDigest: operation.document.digest, operationName: operation.operationName, tags: tags,
            isPerUser: isPerUser, tagHeader: tagHeader)
    }

    /// The usual content types as string literals, which take no memory per entry.
    private static func interned(_ contentType: String?) -> String {
        switch contentType {
        case nil, "application/json": "application/json"
        case "application/json; charset=utf-8": "application/json; charset=utf-8"
        case "application/graphql-response+json": "application/graphql-response+json"
        case let other?: other
        }
    }
}
