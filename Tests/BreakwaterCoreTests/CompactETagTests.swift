// The entity tag kept as 16 bytes and the body kept without a copy: what a cache entry stores
// of its answer, and what it writes back.

import BreakwaterCore
import Testing

struct CompactETagTests {
    @Test(arguments: [
        "\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"", "\"00000000000000000000000000000001\"",
        "\"ffffffffffffffffffffffffffffffff\"",
    ])
    func aTagOfBreakwatersFormRoundTrips(tag: String) throws {
        let compact = try #require(CompactETag(quoted: tag))
        #expect(compact.quoted == tag)
    }

    @Test func randomTagsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let digits = (0..<32).map { _ in "0123456789abcdef".randomElement(using: &generator)! }
            let tag = "\"" + String(digits) + "\""
            guard tag != "\"" + String(repeating: "0", count: 32) + "\"" else { continue }
            #expect(try #require(CompactETag(quoted: tag)).quoted == tag)
        }
    }

    @Test(arguments: [
        "", "\"\"", "2cf24dba5fb0a30e26e83b2ac5b9e29e", "\"2CF24DBA5FB0A30E26E83B2AC5B9E29E\"",
        "W/\"2cf24dba5fb0a30e26e83b2ac5b9e29e\"", "\"2cf24dba5fb0a30e26e83b2ac5b9e29\"",
        "\"2cf24dba5fb0a30e26e83b2ac5b9e29e0\"", "\"2cf24dba5fb0a30e26e83b2ac5b9e29e-gzip\"",
        "\"2cf24dba5fb0a30e26e83b2ac5b9e29g\"", "\"00000000000000000000000000000000\"",
    ])
    func anyOtherTagIsNotCompact(tag: String) {
        #expect(CompactETag(quoted: tag) == nil)
    }

    @Test(arguments: ["\"2CF24DBA5FB0A30E26E83B2AC5B9E29E\"", "W/\"x\"", "\"abc-gzip\""])
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

    @Test func aCompactTagIsWrittenFirstThenTheStoredLines() {
        let tag = "\"0123456789abcdef0123456789abcdef\""
        let response = PrebuiltResponse(
            fields: [HTTPHeaderField(name: "ETag", value: tag), HTTPHeaderField(name: "Surrogate-Key", value: "op:A")],
            body: Array("[1]".utf8))
        #expect(
            String(decoding: response.head, as: UTF8.self)
                == "ETag: \(tag)\r\nSurrogate-Key: op:A\r\nContent-Length: 3\r\n\r\n")
        // Only the line is stored in front of the body; the tag is 16 bytes beside it.
        #expect(response.bodyStart == "Surrogate-Key: op:A\r\n".utf8.count)
        #expect(response.value(of: "etag") == tag)
        #expect(response.value(of: "Content-Length") == "3")
    }

    @Test func aBodyReadToItsLengthIsKeptAsItIs() {
        var body: [UInt8] = []
        body.reserveCapacity(1_023)
        body.append(contentsOf: [UInt8](repeating: 0x41, count: 1_023))
        let response = PrebuiltResponse(
            fields: [HTTPHeaderField(name: "ETag", value: "\"0123456789abcdef0123456789abcdef\"")], body: body)
        response.bytes.withUnsafeBufferPointer { kept in
            body.withUnsafeBufferPointer { origin in #expect(kept.baseAddress == origin.baseAddress) }
        }
    }

    @Test func aBodyWithMuchUnusedCapacityIsCopiedToSize() {
        var body: [UInt8] = []
        body.reserveCapacity(64 * 1024)
        body.append(contentsOf: [UInt8](repeating: 0x41, count: 1_000))
        let response = PrebuiltResponse(fields: [], body: body)
        #expect(response.bytes == body)
        #expect(response.bytes.capacity - response.bytes.count < 64)
        response.bytes.withUnsafeBufferPointer { kept in
            body.withUnsafeBufferPointer { origin in #expect(kept.baseAddress != origin.baseAddress) }
        }
    }
}
