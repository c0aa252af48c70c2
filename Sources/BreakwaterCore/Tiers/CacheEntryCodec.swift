// The bytes a cache entry is kept as in a fleet tier (docs/FLEET.md): compact, binary (the body
// is stored as it is, never re-encoded as JSON), versioned, and read back only when every field
// is whole and well-formed.

import Glibc

/// Encodes and decodes a `CacheEntry` for a fleet tier.
///
/// Layout (integers little-endian; a string or byte field is a `UInt32` length, then the bytes):
/// ```
/// u8  version (1)
/// 32  cache-key digest        32  document digest
/// u8  flags: bit 0 per-user, bit 1 has an operation name
/// i64 stored-at, wall-clock ms since the epoch
/// u64 ttl ms   u64 stale-while-revalidate ms   u64 stale-if-error ms
/// str content type   str ETag   [str operation name]
/// u32 tag count, then each tag as str
/// bytes body
/// ```
/// Nothing may follow the body, except, with `redis.signing_key`, the 32-byte code that
/// `RedisValueSigner` appends (checked before any field is read). An entry's local `storedAt` is
/// rebuilt on decode from its wall-clock time, so that its age is the same on every host (within
/// their clocks' agreement).
package enum CacheEntryCodec {
    package static let version: UInt8 = 1

    private static let perUserFlag: UInt8 = 1
    private static let operationNameFlag: UInt8 = 2
    /// Bytes before the first string: version, two digests, flags, stored-at, three durations.
    private static let fixedBytes = 1 + 32 + 32 + 1 + 8 + 3 * 8

    /// The entry's bytes.
    package static func encode(_ entry: CacheEntry) -> [UInt8] {
        encode(entry, signedBy: nil, storedUnder: "")
    }

    /// The entry's bytes, followed by their code under `signer` as stored under `redisKey` when
    /// there is a signer.
    package static func encode(_ entry: CacheEntry, signedBy signer: RedisValueSigner?, storedUnder redisKey: String)
        -> [UInt8]
    {
        var size = fixedBytes + 4 * 5 + entry.contentType.utf8.count + entry.etag.utf8.count + entry.body.count
        size += entry.operationName?.utf8.count ?? 0
        for tag in entry.tags { size += 4 + tag.utf8.count }
        if signer != nil { size += RedisValueSigner.codeBytes }
        var out: [UInt8] = []
        out.reserveCapacity(size)
        out.append(version)
        entry.key.digest.withUnsafeBytes { out.append(contentsOf: $0) }
        entry.documentDigest.withUnsafeBytes { out.append(contentsOf: $0) }
        out.append((entry.isPerUser ? perUserFlag : 0) | (entry.operationName == nil ? 0 : operationNameFlag))
        appendInteger(UInt64(bitPattern: entry.storedAtWallClock.millisecondsSinceEpoch), to: &out)
        for duration in [entry.ttl, entry.staleWhileRevalidate, entry.staleIfError] {
            appendInteger(UInt64(max(0, duration.wholeMilliseconds)), to: &out)
        }
        appendField(Array(entry.contentType.utf8), to: &out)
        appendField(Array(entry.etag.utf8), to: &out)
        if let name = entry.operationName { appendField(Array(name.utf8), to: &out) }
        appendInteger(UInt32(entry.tags.count), to: &out)
        for tag in entry.tags { appendField(Array(tag.utf8), to: &out) }
        appendField(entry.body, to: &out)
        signer?.sign(&out, storedUnder: redisKey)
        return out
    }

    /// The entry `bytes` hold, aged as if stored `wallNow - storedAtWallClock` ago (never in the
    /// future); throws on anything that is not exactly one well-formed entry of this version.
    package static func decode(
        _ bytes: [UInt8], now: ContinuousClock.Instant, wallNow: WallClockTime
    ) throws(CacheEntryCodecError) -> CacheEntry {
        try decode(bytes, signedBy: nil, storedUnder: "", now: now, wallNow: wallNow)
    }

    /// Like `decode(_:now:wallNow:)`; with a signer, `bytes` must end in their code as stored under
    /// `redisKey` (`signatureMismatch` otherwise), and nothing is parsed before it is checked.
    package static func decode(
        _ bytes: [UInt8], signedBy signer: RedisValueSigner?, storedUnder redisKey: String,
        now: ContinuousClock.Instant, wallNow: WallClockTime
    ) throws(CacheEntryCodecError) -> CacheEntry {
        var end = bytes.count
        if let signer {
            guard let payload = signer.verifiedPayloadCount(of: bytes, storedUnder: redisKey) else {
                throw .signatureMismatch
            }
            end = payload
        }
        var reader = Reader(bytes: bytes, end: end)
        guard try reader.byte() == version else { throw .unsupportedVersion }
        let key = CacheKey(digest: SHA256Digest(bytes: try reader.bytes(32)))
        let document = SHA256Digest(bytes: try reader.bytes(32))
        let flags = try reader.byte()
        guard flags & ~(perUserFlag | operationNameFlag) == 0 else { throw .malformed("unknown flags") }
        let storedAtWallClock = WallClockTime(millisecondsSinceEpoch: Int64(bitPattern: try reader.integer(UInt64.self)))
        let ttl = try reader.duration()
        let staleWhileRevalidate = try reader.duration()
        let staleIfError = try reader.duration()
        let contentType = try reader.string()
        let etag = try reader.string()
        let operationName = flags & operationNameFlag == 0 ? nil : try reader.string()
        let tagCount = Int(try reader.integer(UInt32.self))
        // Each tag takes at least its 4-byte length: a count beyond that is a lie, not an allocation.
        guard tagCount <= reader.remaining / 4 else { throw .truncated }
        var tags: [String] = []
        tags.reserveCapacity(tagCount)
        for _ in 0..<tagCount { tags.append(try reader.string()) }
        let body = try reader.field()
        guard reader.remaining == 0 else { throw .malformed("bytes after the body") }
        let age = wallNow.since(storedAtWallClock)
        return CacheEntry.make(
            key: key, body: body, contentType: contentType, etag: etag, storedAt: now - age,
            storedAtWallClock: storedAtWallClock, ttl: ttl, staleWhileRevalidate: staleWhileRevalidate,
            staleIfError: staleIfError, documentDigest: document, operationName: operationName, tags: tags,
            isPerUser: flags & perUserFlag != 0)
    }

    private static func appendInteger<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func appendField(_ field: [UInt8], to out: inout [UInt8]) {
        appendInteger(UInt32(field.count), to: &out)
        out.append(contentsOf: field)
    }

    /// Reads fields front to back, refusing to read past the end.
    private struct Reader {
        let bytes: [UInt8]
        /// Where the entry ends (before a signature).
        let end: Int
        var offset = 0

        var remaining: Int { end - offset }

        mutating func byte() throws(CacheEntryCodecError) -> UInt8 {
            guard remaining >= 1 else { throw .truncated }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) throws(CacheEntryCodecError) -> [UInt8] {
            guard count <= remaining else { throw .truncated }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func integer<T: FixedWidthInteger>(_: T.Type) throws(CacheEntryCodecError) -> T {
            let size = MemoryLayout<T>.size
            guard size <= remaining else { throw .truncated }
            var value: T = 0
            for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
            offset += size
            return value
        }

        mutating func duration() throws(CacheEntryCodecError) -> Duration {
            let milliseconds = try integer(UInt64.self)
            // Beyond a century is no TTL any proxy writes.
            guard milliseconds <= 100 * 365 * 24 * 3_600_000 else { throw .malformed("duration out of range") }
            return .milliseconds(Int64(milliseconds))
        }

        mutating func field() throws(CacheEntryCodecError) -> [UInt8] {
            try bytes(Int(try integer(UInt32.self)))
        }

        /// A length-prefixed UTF-8 string, made straight from the bytes (a snapshot's load reads
        /// about a hundred tags an entry: no array per string, no generic validation).
        mutating func string() throws(CacheEntryCodecError) -> String {
            let count = Int(try integer(UInt32.self))
            guard count <= remaining else { throw .truncated }
            let range = offset..<offset + count
            let text = bytes.withUnsafeBufferPointer { all in
                let raw = UnsafeBufferPointer(rebasing: all[range])
                var text = String(decoding: raw, as: UTF8.self)
                // Decoding repairs what is not UTF-8; the same bytes back mean there was nothing to repair.
                let unrepaired =
                    text.utf8.count == raw.count
                    && text.withUTF8 { decoded in count == 0 || memcmp(decoded.baseAddress!, raw.baseAddress!, count) == 0 }
                return unrepaired ? text : nil
            }
            guard let text else { throw .malformed("a string is not UTF-8") }
            offset += count
            return text
        }
    }
}

/// Why stored bytes were not accepted as a cache entry.
package enum CacheEntryCodecError: Error, Sendable, Equatable {
    /// Written by another version of the layout.
    case unsupportedVersion
    /// The bytes end inside a field.
    case truncated
    /// A field is whole but impossible.
    case malformed(String)
    /// A signing key is set and the value's code is missing or wrong: forged, altered, moved from
    /// another Redis key, or written under another key.
    case signatureMismatch
}
