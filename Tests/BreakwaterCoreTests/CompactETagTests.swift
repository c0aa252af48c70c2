// The entity tag kept as 16 bytes and the body kept without a copy: what a cache entry stores
// of its answer, and what it writes back.

import BreakwaterCore
import Testing
import BreakwaterFixtures

/// glibc's size of the allocation at `pointer` (not in Swift's Glibc module).
@_silgen_name("malloc_usable_size")
private func mallocUsableSize(_ pointer: UnsafeMutableRawPointer) -> Int

struct CompactETagTests {
    @Test(arguments: [
        "\"2cf24dba5fb0a30e\"", "\"0000000000000001\"", "\"fffffffeffffffff\"", "\"7fffffffffffffff\"",
    ])
    func aTagOfBreakwatersFormRoundTrips(tag: String) throws {
        let compact = try #require(CompactETag(quoted: tag))
        #expect(compact.quoted == tag)
    }

    @Test func randomTagsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let digits = (0..<16).map { _ in "0123456789abcdef".randomElement(using: &generator)! }
            let tag = "\"" + String(digits) + "\""
            guard !tag.hasPrefix("\"ffffffff"), tag != "\"0000000000000000\"" else { continue }
            #expect(try #require(CompactETag(quoted: tag)).quoted == tag)
        }
    }

    @Test(arguments: [
        "", "\"\"", "2cf24dba5fb0a30e", "\"2CF24DBA5FB0A30E\"", "W/\"2cf24dba5fb0a30e\"", "\"2cf24dba5fb0a30\"",
        "\"2cf24dba5fb0a30e0\"", "\"2cf24dba5fb0a30e-gzip\"", "\"2cf24dba5fb0a30g\"", "\"0000000000000000\"",
        "\"ffffffff00000000\"", "\"ffffffffffffffff\"", "\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"",
    ])
    func anyOtherTagIsNotCompact(tag: String) {
        #expect(CompactETag(quoted: tag) == nil)
    }

    @Test(arguments: ["\"2CF24DBA5FB0A30E\"", "W/\"x\"", "\"abc-gzip\"", "\"ffffffff12345678\""])
    func anEntryWritesAnyOtherTagBackByteForByte(tag: String) {
        let response = PrebuiltResponse(
            fields: [HTTPHeaderField(name: "ETag", value: tag), HTTPHeaderField(name: "X-Tags", value: "a,b")],
            body: Array("{}".utf8))
        #expect(String(decoding: response.head, as: UTF8.self) == "ETag: \(tag)\r\nX-Tags: a,b\r\nContent-Length: 2\r\n\r\n")
        #expect(response.etag == tag)
        #expect(response.storedFields.map(\.name) == ["X-Tags"])
        #expect(response.body == Array("{}".utf8))
        #expect(response.head.count <= response.headBound)
    }

    @Test func withStoredLinesACompactTagIsStoredAsTheFirstLine() {
        let tag = "\"0123456789abcdef\""
        let response = PrebuiltResponse(
            fields: [HTTPHeaderField(name: "ETag", value: tag), HTTPHeaderField(name: "Surrogate-Key", value: "op:A")],
            body: Array("[1]".utf8))
        #expect(
            String(decoding: response.head, as: UTF8.self)
                == "ETag: \(tag)\r\nSurrogate-Key: op:A\r\nContent-Length: 3\r\n\r\n")
        #expect(response.bodyStart == "ETag: \(tag)\r\nSurrogate-Key: op:A\r\n".utf8.count)
        #expect(response.storedFields.map(\.name) == ["Surrogate-Key"])
        #expect(response.value(of: "etag") == tag)
        #expect(response.value(of: "Content-Length") == "3")
    }

    @Test func anEntryKeepsItsBodyBehindItsFieldsInOneAllocation() {
        let body = [UInt8](repeating: 0x41, count: 1_023)
        let entry = StoreFixture.entry(key: StoreFixture.key(1), body: body)
        let object = Unmanaged.passUnretained(entry).toOpaque()
        // The object's header, the fields, then the bytes; a 1 KiB answer is one chunk of 1,120.
        #expect(MemoryLayout<CacheEntryFields>.size == 72)
        #expect(entry.response.bodyStart == 0)
        #expect(UnsafeRawPointer(entry.response.storageAddress) - UnsafeRawPointer(object) == 16 + 72)
        #expect(entry.body == body)
        // Asked for 16 + 72 + 1,023 = 1,111 bytes: glibc's chunk of 1,120 has 1,112 usable;
        // AddressSanitizer's allocator reports the 1,111 asked for.
        #expect((1_111...1_112).contains(mallocUsableSize(object)))
    }

    @Test func withoutLinesOnlyTheTagIsKeptBesideTheBody() {
        let tag = "\"0123456789abcdef\""
        let response = PrebuiltResponse(fields: [HTTPHeaderField(name: "ETag", value: tag)], body: Array("[1]".utf8))
        #expect(response.bytes == Array("[1]".utf8))
        #expect(response.bodyStart == 0)
        #expect(String(decoding: response.head, as: UTF8.self) == "ETag: \(tag)\r\nContent-Length: 3\r\n\r\n")
        #expect(response.etag == tag)
        let untagged = PrebuiltResponse(fields: [], body: Array("[1]".utf8))
        #expect(String(decoding: untagged.head, as: UTF8.self) == "Content-Length: 3\r\n\r\n")
        #expect(untagged.etag == nil)
    }

    /// What an HTTP/2 header list takes, read in place: the tag first, then the other stored
    /// lines, as `etag` and `storedFields` give them.
    @Test(arguments: [
        [HTTPHeaderField(name: "ETag", value: "\"0123456789abcdef\"")],
        [
            HTTPHeaderField(name: "X-Tags", value: "a b"), HTTPHeaderField(name: "ETag", value: "W/\"x\""),
            HTTPHeaderField(name: "Vary", value: ""),
        ],
        [],
    ])
    func fieldsReadInPlaceAreTheTagThenTheStoredLines(fields: [HTTPHeaderField]) {
        let response = PrebuiltResponse(fields: fields, body: Array("[1]".utf8))
        var read: [HTTPHeaderField] = []
        response.forEachField { name, value in
            read.append(
                HTTPHeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
        }
        #expect(read == (response.etag.map { [HTTPHeaderField(name: "ETag", value: $0)] } ?? []) + response.storedFields)
        #expect(read.count == fields.count)
        if fields.count == 3 { #expect(read.map(\.name) == ["ETag", "X-Tags", "Vary"]) }
    }

    @Test func aPrebuiltAnswerOfItsOwnCopiesTheBodyIntoItsBlock() {
        var body: [UInt8] = []
        body.reserveCapacity(64 * 1024)
        body.append(contentsOf: [UInt8](repeating: 0x41, count: 1_000))
        let response = PrebuiltResponse(fields: [], body: body)
        #expect(response.bytes == body)
        body.withUnsafeBufferPointer { origin in #expect(response.storageAddress != origin.baseAddress) }
    }

    @Test(arguments: [0, 1_764_000_000_000, 1_764_000_000_000 + 40 * 86_400_000, -5, Int64.max / 2] as [Int64])
    func anEntryGivesBackTheWallClockItWasMadeWithNearOrFarFromTheOthers(milliseconds: Int64) {
        let near = StoreFixture.entry(key: StoreFixture.key(1))
        let wall = WallClockTime(millisecondsSinceEpoch: milliseconds)
        let entry = CacheEntry.make(
            key: StoreFixture.key(2), body: Array("{}".utf8), contentType: "application/json", etag: StoreFixture.etag,
            storedAt: StoreFixture.start + .milliseconds(1_234), storedAtWallClock: wall, ttl: .seconds(30),
            staleWhileRevalidate: .zero, staleIfError: .zero, documentDigest: StoreFixture.document, operationName: nil,
            tags: [], isPerUser: false)
        #expect(entry.storedAtWallClock == wall)
        #expect(near.storedAtWallClock == WallClockTime(millisecondsSinceEpoch: 0))
        // A second entry made a millisecond later on both clocks.
        let next = CacheEntry.make(
            key: StoreFixture.key(3), body: Array("{}".utf8), contentType: "application/json", etag: StoreFixture.etag,
            storedAt: StoreFixture.start + .milliseconds(1_235),
            storedAtWallClock: WallClockTime(millisecondsSinceEpoch: milliseconds + 1), ttl: .seconds(30),
            staleWhileRevalidate: .zero, staleIfError: .zero, documentDigest: StoreFixture.document, operationName: nil,
            tags: [], isPerUser: false)
        #expect(next.storedAtWallClock.millisecondsSinceEpoch == milliseconds + 1)
    }
}
