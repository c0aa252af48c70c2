// CacheEntryCodec: a round trip keeps every field and the entry's age; anything truncated,
// trailing, of another version or simply random is refused, never half-read. Signed
// (`redis.signing_key`): a flipped byte, another key, another Redis key or no signature is refused.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct RedisCacheEntryCodecTests {
    static let hasher = SoftwareSHA256()
    static let start = ContinuousClock.now
    static let wallStart = WallClockTime(millisecondsSinceEpoch: 1_790_000_000_000)

    static func entry(operationName: String? = "GetLaunches", tags: [String] = ["Launch", "Launch:92"], isPerUser: Bool = false, body: String = #"{"data":{"launch":{"id":"92"}}}"#) -> CacheEntry {
        let bytes = Array(body.utf8)
        return CacheEntry.make(
            key: CacheKey(digest: hasher.sha256("key")), body: bytes, contentType: "application/json; charset=utf-8",
            etag: CacheEntry.makeETag(body: bytes, hasher: hasher), storedAt: start, storedAtWallClock: wallStart,
            ttl: .seconds(30), staleWhileRevalidate: .seconds(10), staleIfError: .milliseconds(300_500),
            documentDigest: hasher.sha256("query { launches }"), operationName: operationName, tags: tags,
            isPerUser: isPerUser)
    }

    @Test(arguments: [
        entry(),
        entry(operationName: nil, tags: [], isPerUser: true),
        entry(operationName: "", tags: ["Ünïcode:ü"], body: ""),
    ])
    func roundTripKeepsEveryField(original: CacheEntry) throws {
        let bytes = CacheEntryCodec.encode(original)
        let later = Self.start + .seconds(100)
        let decoded = try CacheEntryCodec.decode(
            bytes, now: later, wallNow: WallClockTime(millisecondsSinceEpoch: Self.wallStart.millisecondsSinceEpoch + 7_250))
        #expect(decoded.key == original.key)
        #expect(decoded.body == original.body)
        #expect(decoded.contentType == original.contentType)
        #expect(decoded.etag == original.etag)
        #expect(decoded.tags == original.tags)
        #expect(decoded.operationName == original.operationName)
        #expect(decoded.documentDigest == original.documentDigest)
        #expect(decoded.isPerUser == original.isPerUser)
        #expect(decoded.storedAtWallClock == original.storedAtWallClock)
        #expect(decoded.ttl == original.ttl)
        #expect(decoded.staleWhileRevalidate == original.staleWhileRevalidate)
        #expect(decoded.staleIfError == original.staleIfError)
        // Aged by the wall clocks' difference, whatever the local monotonic clock says.
        #expect(later - decoded.storedAt == .milliseconds(7_250))
        // The prebuilt answer (ETag, Content-Length, body) is rebuilt byte for byte.
        #expect(decoded.response.bytes == original.response.bytes)
    }

    @Test func anEntryFromTheFutureIsNeverOlderThanZero() throws {
        let bytes = CacheEntryCodec.encode(Self.entry())
        let skewed = WallClockTime(millisecondsSinceEpoch: Self.wallStart.millisecondsSinceEpoch - 5_000)
        let decoded = try CacheEntryCodec.decode(bytes, now: Self.start, wallNow: skewed)
        #expect(decoded.storedAt == Self.start)
    }

    @Test func everyTruncationIsRefused() {
        let bytes = CacheEntryCodec.encode(Self.entry())
        for length in 0..<bytes.count {
            #expect(throws: CacheEntryCodecError.self) {
                _ = try CacheEntryCodec.decode(Array(bytes[..<length]), now: Self.start, wallNow: Self.wallStart)
            }
        }
    }

    @Test func trailingBytesAnotherVersionAndUnknownFlagsAreRefused() {
        let bytes = CacheEntryCodec.encode(Self.entry())
        #expect(throws: CacheEntryCodecError.malformed("bytes after the body")) {
            _ = try CacheEntryCodec.decode(bytes + [0], now: Self.start, wallNow: Self.wallStart)
        }
        var otherVersion = bytes
        otherVersion[0] = 2
        #expect(throws: CacheEntryCodecError.unsupportedVersion) {
            _ = try CacheEntryCodec.decode(otherVersion, now: Self.start, wallNow: Self.wallStart)
        }
        var flags = bytes
        flags[65] |= 0x80
        #expect(throws: CacheEntryCodecError.malformed("unknown flags")) {
            _ = try CacheEntryCodec.decode(flags, now: Self.start, wallNow: Self.wallStart)
        }
    }

    @Test func aHugeTagCountIsRefusedWithoutAllocatingForIt() {
        var bytes = CacheEntryCodec.encode(Self.entry(operationName: nil, tags: []))
        // The tag count follows the fixed part and two 4-byte-length strings.
        let countOffset = 1 + 32 + 32 + 1 + 8 + 24 + 4 + 31 + 4 + 18  // the quoted 16-digit ETag
        #expect(bytes[countOffset..<countOffset + 4] == [0, 0, 0, 0])
        bytes.replaceSubrange(countOffset..<countOffset + 4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: CacheEntryCodecError.truncated) {
            _ = try CacheEntryCodec.decode(bytes, now: Self.start, wallNow: Self.wallStart)
        }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        var bytes = CacheEntryCodec.encode(Self.entry())
        // The first content-type byte.
        bytes[1 + 32 + 32 + 1 + 8 + 24 + 4] = 0xFF
        #expect(throws: CacheEntryCodecError.malformed("a string is not UTF-8")) {
            _ = try CacheEntryCodec.decode(bytes, now: Self.start, wallNow: Self.wallStart)
        }
    }

    @Test func randomBytesNeverDecodeNorCrash() {
        var generator = SplitMix64(seed: 11)
        for round in 0..<2_000 {
            let count = Int(generator.next() % 300)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if round % 2 == 0, !bytes.isEmpty { bytes[0] = CacheEntryCodec.version }
            #expect(throws: CacheEntryCodecError.self) {
                _ = try CacheEntryCodec.decode(bytes, now: Self.start, wallNow: Self.wallStart)
            }
        }
    }

    // MARK: Signed entries

    static let signer = RedisValueSigner(hmac: SoftwareHMACSHA256(key: Array("0123456789abcdef-fleet-key".utf8)))
    static let redisKey = "bw:g0:e:" + hasher.sha256("key").hex

    static func decodeSigned(
        _ bytes: [UInt8], signer: RedisValueSigner? = signer, storedUnder redisKey: String = redisKey
    ) throws(CacheEntryCodecError) -> CacheEntry {
        try CacheEntryCodec.decode(bytes, signedBy: signer, storedUnder: redisKey, now: start, wallNow: wallStart)
    }

    @Test func aSignedEntryRoundTripsWithThirtyTwoBytesMore() throws {
        let original = Self.entry()
        let signed = CacheEntryCodec.encode(original, signedBy: Self.signer, storedUnder: Self.redisKey)
        let unsigned = CacheEntryCodec.encode(original)
        #expect(signed.count == unsigned.count + RedisValueSigner.codeBytes)
        #expect(Array(signed.prefix(unsigned.count)) == unsigned)
        let decoded = try Self.decodeSigned(signed)
        #expect(decoded.body == original.body)
        #expect(decoded.response.bytes == original.response.bytes)
    }

    @Test func aSignedEntryWithAnyByteFlippedIsRefused() {
        let signed = CacheEntryCodec.encode(Self.entry(), signedBy: Self.signer, storedUnder: Self.redisKey)
        for index in signed.indices {
            var forged = signed
            forged[index] ^= 0x01
            #expect(throws: CacheEntryCodecError.signatureMismatch) { _ = try Self.decodeSigned(forged) }
        }
    }

    @Test func anEntrySignedUnderAnotherKeyIsRefused() {
        let other = RedisValueSigner(hmac: SoftwareHMACSHA256(key: Array("0123456789abcdef-fleet-keY".utf8)))
        let signed = CacheEntryCodec.encode(Self.entry(), signedBy: other, storedUnder: Self.redisKey)
        #expect(throws: CacheEntryCodecError.signatureMismatch) { _ = try Self.decodeSigned(signed) }
    }

    @Test func anEntryMovedToAnotherRedisKeyIsRefused() {
        let signed = CacheEntryCodec.encode(Self.entry(), signedBy: Self.signer, storedUnder: Self.redisKey)
        // Another cache key, and the same key under another purge generation.
        for elsewhere in ["bw:g0:e:" + Self.hasher.sha256("other").hex, "bw:g1:e:" + Self.hasher.sha256("key").hex] {
            #expect(throws: CacheEntryCodecError.signatureMismatch) {
                _ = try Self.decodeSigned(signed, storedUnder: elsewhere)
            }
        }
    }

    @Test func anUnsignedEntryIsRefusedWhenAKeyIsSet() {
        let unsigned = CacheEntryCodec.encode(Self.entry())
        #expect(throws: CacheEntryCodecError.signatureMismatch) { _ = try Self.decodeSigned(unsigned) }
        // Shorter than a signature.
        #expect(throws: CacheEntryCodecError.signatureMismatch) { _ = try Self.decodeSigned([1, 2, 3]) }
        // A forger who appends 32 bytes of anything still has no valid code.
        let padded = unsigned + [UInt8](repeating: 0, count: RedisValueSigner.codeBytes)
        #expect(throws: CacheEntryCodecError.signatureMismatch) { _ = try Self.decodeSigned(padded) }
    }

    @Test func aSignedEntryIsRefusedByAProxyWithoutAKey() {
        // A fleet half-configured fails closed both ways: the code reads as bytes after the body.
        let signed = CacheEntryCodec.encode(Self.entry(), signedBy: Self.signer, storedUnder: Self.redisKey)
        #expect(throws: CacheEntryCodecError.malformed("bytes after the body")) {
            _ = try Self.decodeSigned(signed, signer: nil)
        }
    }
}
