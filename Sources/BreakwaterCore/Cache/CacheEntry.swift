// One cached response with what the store needs to serve, age, purge and bound it.

import Synchronization

/// An immutable cached response, shared by reference between the store and every request it serves.
///
/// One allocation holds it all: the object's header, the fields (`CacheEntryFields`), then the
/// stored lines (usually none) and the body. A hit hands out this object and answers with its
/// `response`, a view of those bytes: the ETag line and Content-Length written from 8 bytes and
/// a count, then the lines and body as they are.
///
/// The class declares no stored properties: its instances are made by `ManagedBufferPointer`
/// (`ManagedBuffer` itself cannot be `Sendable`), which places the fields and bytes behind the
/// object's header. They are written once, by `make`, before the entry is shared. What few
/// entries have (a gzip form, a wall-clock instant out of step with the others) is kept beside
/// them, in `EntrySideTable`s.
package final class CacheEntry: Sendable {
    private typealias Storage = ManagedBufferPointer<CacheEntryFields, UInt8>

    /// Never called: entries come from `make` only.
    private init() {}

    /// Bytes charged for each entry beyond the sizes counted one by one below: its allocation's
    /// header and fields (97 with the allocator's word and rounding), its SIEVE slot and visited
    /// bit (about 17 with the array's growth), its key-table bucket (about 14), and the rest of
    /// the process's growth per entry. Measured, not guessed: `bench/memory.sh` saw 143 resident
    /// bytes an entry beyond its body (100k entries of 1 KiB, eight tags each, 2026-11-25; it was
    /// 350 on 2026-11-23, when this was 320). The charge keeps about a third on top, for the
    /// allocator's holes when entries of other sizes come and go, so that `cache.max_bytes`
    /// bounds the process's memory, not only the bodies.
    package static let fixedOverhead = 192

    /// Bytes charged for each tag beyond its text: its element of the entry's tag list (16, when
    /// the list is not shared with other entries) and its slot number in the tag index (4, with
    /// the list's growth about 5).
    package static let perTagOverhead = 24

    /// Reads the fields in place (no copy of the struct, no retain of what `read` does not take).
    @inline(__always)
    private func fields<T>(_ read: (UnsafeMutablePointer<CacheEntryFields>) -> T) -> T {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointerToHeader(read)
    }

    package var key: CacheKey { fields { $0.pointee.key } }
    /// `ETag`, the extra header lines, `Content-Length` and the body, as every answer writes them:
    /// a view of this entry's own bytes.
    @inline(__always)
    package var response: PrebuiltResponse {
        Storage(unsafeBufferObject: self).withUnsafeMutablePointers { fields, bytes in
            PrebuiltResponse(owner: self, start: bytes, count: Int(fields.pointee.count), word: fields.pointee.word)
        }
    }
    /// The same instant as `storedAt` on the wall clock, which other hosts of a fleet understand too.
    package var storedAtWallClock: WallClockTime {
        let (storedAt, offset) = fields { ($0.pointee.storedAt, $0.pointee.wallClockOffset) }
        guard offset != CacheEntryFields.wallClockElsewhere else {
            return Self.wallClocksElsewhere.value(for: self) ?? WallClockTime(millisecondsSinceEpoch: 0)
        }
        return WallClockTime(
            millisecondsSinceEpoch: storedAt.milliseconds + Self.wallClockBase.load(ordering: .relaxed) + Int64(offset))
    }
    /// Entity tags, `Type:id` and `Type` (docs/SCHEMA.md).
    package var tags: [String] { fields { $0.pointee.tags } }

    /// What the entry counts against the store's memory bound: its stored bytes (extra lines and
    /// body) plus `fixedOverhead`, its operation name, and each tag with `perTagOverhead`.
    package var cost: Int {
        var cost = Int(fields { $0.pointee.count }) + Self.fixedOverhead + (operationName?.utf8.count ?? 0)
        for tag in tags { cost += tag.utf8.count + Self.perTagOverhead }
        return cost
    }

    /// When the origin's answer was stored, on this process's monotonic clock (ages, expiry).
    package var storedAt: ContinuousClock.Instant { fields { $0.pointee.storedAt.instant } }

    /// Reads the entry's shape in place: neither it nor what `read` does not take is retained
    /// (a lookup reads three of its fields, and each read retained and released it).
    @inline(__always)
    private func withShape<T>(_ read: (CacheEntryShape) -> T) -> T {
        fields { Unmanaged.passUnretained($0.pointee.shape)._withUnsafeGuaranteedRef(read) }
    }

    package var contentType: String { withShape { $0.fields.contentType } }
    /// `Cache-Control` of a public answer to a GET (README "The response cache"), shared between entries alike.
    package var publicCacheControl: String { withShape { $0.publicCacheControl } }
    package var staleCacheControl: String { withShape { $0.staleCacheControl } }
    /// `publicCacheControl`, `staleCacheControl` and `contentType` as texts, and their owner (the
    /// entry's shape), which keeps the bytes for as long as it is held.
    var stableTexts: (texts: CacheEntryTexts, owner: CacheEntryShape) {
        fields { ($0.pointee.shape.stableTexts, $0.pointee.shape) }
    }
    package var ttl: Duration { withShape { $0.fields.ttl } }
    package var staleWhileRevalidate: Duration { withShape { $0.fields.staleWhileRevalidate } }
    package var staleIfError: Duration { withShape { $0.fields.staleIfError } }
    package var documentDigest: SHA256Digest { withShape { $0.fields.documentDigest } }
    package var operationName: String? { withShape { $0.fields.operationName } }
    package var isPerUser: Bool { withShape { $0.fields.isPerUser } }
    /// What the TTL was decided from besides the settings (`CachePolicy.ttl(operationName:basis:tags:)`);
    /// nil for an entry read from the fleet tier or a cache snapshot.
    package var ttlBasis: TTLBasis? { withShape { $0.fields.ttlBasis } }

    /// A new entry: its fields, then `extraHeaders` (after `ETag`) as lines, then a copy of `body`.
    package static func make(
        key: CacheKey,
        body: [UInt8],
        contentType: String,
        etag: String,
        extraHeaders: [HTTPHeaderField] = [],
        storedAt: ContinuousClock.Instant,
        storedAtWallClock: WallClockTime = WallClockTime(millisecondsSinceEpoch: 0),
        ttl: Duration,
        staleWhileRevalidate: Duration,
        staleIfError: Duration,
        documentDigest: SHA256Digest,
        operationName: String?,
        tags: [String],
        isPerUser: Bool,
        ttlBasis: TTLBasis? = nil
    ) -> CacheEntry {
        let (word, lines) = PrebuiltResponse.layout(fields: [HTTPHeaderField(name: "ETag", value: etag)] + extraHeaders)
        let shape = CacheEntryShape.shared(
            CacheEntryShape.Fields(
                documentDigest: documentDigest, operationName: operationName, ttl: ttl,
                staleWhileRevalidate: staleWhileRevalidate, staleIfError: staleIfError, contentType: contentType,
                isPerUser: isPerUser, ttlBasis: ttlBasis))
        let count = lines.count + body.count
        precondition(count <= UInt32.max, "an entry holds less than 4 GiB")
        let compactStoredAt = CompactInstant(storedAt)
        let offset = wallClockOffset(storedAtWallClock, storedAt: compactStoredAt)
        let fields = CacheEntryFields(
            key: key, word: word, storedAt: compactStoredAt, shape: shape,
            tags: tags.isEmpty || tags.count > sharedTagListLength ? tags : tagLists.shared(tags) { $0 },
            count: UInt32(count), wallClockOffset: offset ?? CacheEntryFields.wallClockElsewhere)
        let storage = Storage(bufferClass: CacheEntry.self, minimumCapacity: count) { _, _ in fields }
        storage.withUnsafeMutablePointerToElements { PrebuiltBlock.fill($0, lines: lines, body: body) }
        let entry = unsafeDowncast(storage.buffer, to: CacheEntry.self)
        if offset == nil { _ = wallClocksElsewhere.storeIfAbsent(storedAtWallClock, for: entry) }
        return entry
    }

    deinit {
        // The fields are this class's to destroy (the bytes are trivial).
        let wallClockElsewhere = fields { fields in
            defer { fields.deinitialize(count: 1) }
            return fields.pointee.wallClockOffset == CacheEntryFields.wallClockElsewhere
        }
        if wallClockElsewhere { Self.wallClocksElsewhere.removeValue(for: self) }
        Self.gzipForms.removeValue(for: self)
    }

    // MARK: The wall clock in 4 bytes

    /// The wall clock minus the monotonic one (milliseconds) when the first entry was made: for
    /// the entries of one process, nearly the same, so that each keeps only its difference from
    /// this one (`wallClockOffset`), in 32 bits (±24 days).
    private static let wallClockBase = Atomic<Int64>(Int64.min)

    /// Entries whose wall clock is too far from the others' to be kept as an offset (a test's
    /// made-up instants, a clock set by days): the exact instant.
    private static let wallClocksElsewhere = EntrySideTable<WallClockTime>()

    /// `wallClock`'s offset from `storedAt` plus the base, or nil when it does not fit 32 bits.
    private static func wallClockOffset(_ wallClock: WallClockTime, storedAt: CompactInstant) -> Int32? {
        let difference = wallClock.millisecondsSinceEpoch &- storedAt.milliseconds
        var base = wallClockBase.load(ordering: .relaxed)
        if base == Int64.min {
            base = wallClockBase.compareExchange(expected: Int64.min, desired: difference, ordering: .relaxed).exchanged
                ? difference : wallClockBase.load(ordering: .relaxed)
        }
        let (offset, overflow) = difference.subtractingReportingOverflow(base)
        guard !overflow, let narrow = Int32(exactly: offset), narrow != CacheEntryFields.wallClockElsewhere else {
            return nil
        }
        return narrow
    }

    /// Tag lists seen lately, so that the entries of one list query (one page of launches for
    /// every value of an unrelated variable, say) hold one copy of their identical tags. Short
    /// lists only, so that the table itself stays small (at most 1024 x 32 tags).
    private static let tagLists = InternTable<[String], [String]>(limit: 1024)
    private static let sharedTagListLength = 32

    /// The answer gzipped: `ETag` of the gzip representation, `Content-Encoding: gzip`, the
    /// extra lines and the compressed body; nil for small bodies and those gzip does not shrink.
    /// Made by the first client that accepts it (README "The response cache": once per entry, not per hit), and kept
    /// in `gzipForms` while the entry lives.
    package func gzipResponse(_ compressor: any BodyCompressing) -> PrebuiltResponse? {
        if !Self.gzipForms.isEmpty, let made = Self.gzipForms.value(for: self) { return made }
        let response = self.response
        guard response.bodyCount >= Compression.minimumBytes else { return nil }
        let compressed = response.withBody { compressor.gzip(UnsafeRawBufferPointer($0)) }
        let made = compressed.map { body in
            PrebuiltResponse(
                fields: [
                    HTTPHeaderField(name: "ETag", value: Self.gzipETag(etag)),
                    HTTPHeaderField(name: "Content-Encoding", value: "gzip"),
                ] + extraHeaders, body: body)
        }
        // Another thread may have made it meanwhile: either is the same bytes.
        return Self.gzipForms.storeIfAbsent(made, for: self)
    }

    /// The gzip forms made so far, by entry: nil for an entry gzip does not shrink (so that it
    /// is not tried again).
    private static let gzipForms = EntrySideTable<PrebuiltResponse?>()

    /// Whether a gzip form is kept for the entry `identifier` names (a test's evidence that an
    /// entry takes its form with it when it goes).
    package static func keepsGzipForm(of identifier: ObjectIdentifier) -> Bool {
        gzipForms.value(for: identifier) != nil
    }

    /// The strong entity tag of the gzip representation: a strong ETag names one representation,
    /// so the compressed bytes get their own (`"<hex>-gzip"`).
    package static func gzipETag(_ etag: String) -> String {
        etag.hasSuffix("\"") ? String(etag.dropLast()) + "-gzip\"" : etag + "-gzip"
    }

    /// A copy of the stored body (the fleet tier's encoding; a hit never copies it).
    package var body: [UInt8] { response.body }

    /// The strong entity tag, quoted, as `makeETag(body:hasher:)` made it.
    package var etag: String { response.etag ?? "" }

    /// The header lines stored besides ETag (a tag header for the CDN in front, say).
    package var extraHeaders: [HTTPHeaderField] { response.storedFields }

    /// The strong entity tag of `body`: the first 8 bytes of its SHA-256 in hex, quoted (64 bits
    /// tell apart the versions of one answer; an entry keeps them in one word).
    package static func makeETag(body: [UInt8], hasher: any SHA256Hashing) -> String {
        "\"\(hasher.sha256(body).hex.prefix(16))\""
    }

    /// The instant the entry stops being fresh, `staleSince` when a soft purge came earlier.
    package func expiresAt(staleSince: ContinuousClock.Instant?) -> ContinuousClock.Instant {
        expiresAt(staleSince: staleSince, storedAt: storedAt)
    }

    /// The same, with `storedAt` already at hand (it is rebuilt from 8 bytes on each read).
    package func expiresAt(
        staleSince: ContinuousClock.Instant?, storedAt: ContinuousClock.Instant
    ) -> ContinuousClock.Instant {
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
    ///
    /// `tagHeader` (`cache.tag_header` and this entry's tags, README "The response cache") is written into the
    /// prebuilt lines of every answer from the entry, after ETag.
    package static func make(
        key: CacheKey, answer: HTTPResponse, ttl: Duration, basis: TTLBasis? = nil, tags: [String],
        operation: PreparedOperation, isPerUser: Bool, settings: Configuration.Cache, now: ContinuousClock.Instant, wallNow: WallClockTime,
        hasher: any SHA256Hashing, tagHeader: HTTPHeaderField? = nil
    ) -> CacheEntry {
        CacheEntry.make(
            key: key, body: answer.body, contentType: interned(answer.headers["Content-Type"]),
            etag: makeETag(body: answer.body, hasher: hasher), extraHeaders: tagHeader.map { [$0] } ?? [],
            storedAt: now, storedAtWallClock: wallNow, ttl: ttl,
            staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            documentDigest: operation.document.digest, operationName: operation.operationName, tags: tags,
            isPerUser: isPerUser, ttlBasis: basis)
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

/// A cache entry's fields, stored in its allocation before its lines and body (72 bytes: with the
/// object's 16 and the allocator's 8, a 1,023-byte body makes an allocation of 1,120).
package struct CacheEntryFields {
    fileprivate let key: CacheKey
    /// `PrebuiltResponse`'s word: the compact entity tag, or the stored lines' length.
    fileprivate let word: UInt64
    /// `storedAt` in 8 bytes.
    fileprivate let storedAt: CompactInstant
    /// What this entry shares with the other entries of its operation (one object for all).
    fileprivate let shape: CacheEntryShape
    fileprivate let tags: [String]
    /// The stored bytes: lines and body.
    fileprivate let count: UInt32
    /// `storedAtWallClock` as milliseconds from `storedAt` plus `CacheEntry.wallClockBase`, or
    /// `wallClockElsewhere`.
    fileprivate let wallClockOffset: Int32

    /// The offset that says the wall clock is in `CacheEntry.wallClocksElsewhere`.
    fileprivate static let wallClockElsewhere = Int32.min
}
