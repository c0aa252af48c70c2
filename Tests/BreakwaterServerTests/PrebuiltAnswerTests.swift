// A cached entry's answer serialised once: the prebuilt lines and body, the
// per-request headers beside them, the stored extra lines, and the gzip form made once.

import BreakwaterCore
import BreakwaterServer
import Testing
import BreakwaterFixtures

struct PrebuiltAnswerTests {
    static let client = ClientView(
        isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: ["Access-Control-Allow-Origin": "*"],
        vary: "Accept")

    @Test func theEntryWritesItsEtagAndLengthBeforeTheBodyItKeeps() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), body: Array(#"{"data":{"a":1}}"#.utf8))
        let text = String(decoding: entry.response.head + entry.response.bytes, as: UTF8.self)
        #expect(text == "ETag: \(StoreFixture.etag)\r\nContent-Length: 16\r\n\r\n{\"data\":{\"a\":1}}")
        #expect(entry.response.head.count <= entry.response.headBound)
        #expect(entry.response.bodyCount == 16)
        #expect(entry.body == Array(#"{"data":{"a":1}}"#.utf8))
        #expect(entry.etag == StoreFixture.etag)
    }

    @Test func aHitAddsOnlyThePerRequestHeadersAndSharesTheEntrysBytes() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        let answer = ClientAnswer.fromEntry(entry, age: .seconds(5), isFresh: true, client: Self.client)
        #expect(answer.status == 200)
        #expect(answer.body.isEmpty)
        #expect(answer.bodyCount == 100)
        #expect(answer.headers.fields.map(\.name) == ["X-Cache", "Age", "Cache-Control", "Vary", "Access-Control-Allow-Origin", "Content-Type"])
        #expect(answer.headerValue("ETag") == StoreFixture.etag)
        #expect(answer.headerValue("content-length") == "100")
        #expect(answer.headers["Cache-Control"] == "public, max-age=60, stale-while-revalidate=10, stale-if-error=300")
        #expect(answer.prebuilt?.storageAddress == entry.response.storageAddress)
        // Entries with the same lifetimes share one Cache-Control string.
        let other = StoreFixture.entry(key: StoreFixture.key(2), ttl: .seconds(60))
        #expect(other.publicCacheControl == entry.publicCacheControl)
    }

    @Test func extraHeaderLinesAreStoredAfterTheETagAndSurviveRebuilding() {
        let entry = CacheEntry.make(
            key: StoreFixture.key(3), body: Array("{}".utf8), contentType: "application/json", etag: StoreFixture.etag,
            extraHeaders: [HTTPHeaderField(name: "Surrogate-Key", value: "op:GetLaunch Launch:92")], storedAt: StoreFixture.start, ttl: .seconds(30),
            staleWhileRevalidate: .zero, staleIfError: .zero, documentDigest: StoreFixture.document, operationName: nil,
            tags: [], isPerUser: false)
        #expect(entry.response.value(of: "surrogate-key") == "op:GetLaunch Launch:92")
        #expect(entry.extraHeaders.map(\.name) == ["Surrogate-Key"])
        #expect(entry.extraHeaders.map(\.value) == ["op:GetLaunch Launch:92"])
    }

    @Test func aConditionalHitMatchingTheETagIs304WithoutABody() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1))
        var client = Self.client
        client.ifNoneMatch = [StoreFixture.etag]
        let answer = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: client)
        #expect(answer.status == 304)
        #expect(answer.prebuilt == nil)
        #expect(answer.headers["ETag"] == StoreFixture.etag)
    }

    @Test func theGzipFormIsMadeOnceAndDecodesToTheBody() throws {
        let body = Array(String(repeating: #"{"id":"1","site":"KSC LC 39A"},"#, count: 60).utf8)
        let entry = StoreFixture.entry(key: StoreFixture.key(4), body: body)
        var client = Self.client
        client.gzip = Gzip()
        let first = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: client)
        let second = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: client)
        let gzipped = try #require(first.prebuilt)
        #expect(gzipped.value(of: "Content-Encoding") == "gzip")
        #expect(gzipped.value(of: "ETag") == CacheEntry.gzipETag(StoreFixture.etag))
        #expect(CacheEntry.gzipETag(#""abc""#) == #""abc-gzip""#)
        #expect(gzipped.bodyCount < body.count)
        #expect(Gzip.gunzip(gzipped.body, limit: 1 << 20) == body)
        #expect(second.prebuilt?.storageAddress == gzipped.storageAddress, "made once")
        // Without gzip, the same entry answers identity.
        let identity = ClientAnswer.fromEntry(entry, age: .zero, isFresh: true, client: Self.client)
        #expect(identity.prebuilt?.value(of: "Content-Encoding") == nil)
        #expect(identity.prebuilt?.body == body)
    }

    @Test func smallBodiesAreNeverCompressed() {
        let entry = StoreFixture.entry(key: StoreFixture.key(5), bodyBytes: Compression.minimumBytes - 1)
        #expect(entry.gzipResponse(Gzip()) == nil)
    }

    @Test func gunzipRefusesBrokenStreamsAndBombs() throws {
        let body = [UInt8](repeating: 65, count: 100_000)
        let compressed = try #require(body.withUnsafeBytes { Gzip().gzip($0) })
        #expect(Gzip.gunzip(compressed, limit: 100_000) == body)
        #expect(Gzip.gunzip(compressed, limit: 99_999) == nil, "more than the limit is refused")
        #expect(Gzip.gunzip(Array(compressed.dropLast(4)), limit: 1 << 20) == nil, "a truncated stream is refused")
        #expect(Gzip.gunzip(Array("not gzip".utf8), limit: 1 << 20) == nil)
    }

    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip;q=0.5", true), ("*", true),
        ("gzip;q=0", false), ("identity", false), ("br, deflate", false), ("", false), ("*;q=0", false),
        ("gzip;q=0, *", false), ("gzip; Q=0.000", false), ("gzip;q=0.", false), ("gzip ;level=1; q=0.001", true),
        ("x-gzip;q=0, deflate", false), ("*;q=0, gzip", true), ("gzip;q=0.5, gzip;q=0", false), ("xgzip", false),
        ("gzipp, identity", false), (" , ,gzip , ", true), ("gzip;q=abc", true), ("\tGzIp\t;\tq=1", true),
        ("deflate;q=0, br;q=1", false), ("x-GZIP", true), ("x_gzip", false), ("*", true), ("*;q=0.0, x-gzip;q=1", true),
    ])
    func acceptEncodingIsReadWithWeights(value: String, accepts: Bool) {
        #expect(AcceptEncoding.acceptsGzip([value]) == accepts)
    }

    /// Several fields: any one's gzip accepts, an explicit `gzip;q=0` in any of them refuses.
    @Test func acceptEncodingFieldsAreReadTogether() {
        #expect(AcceptEncoding.acceptsGzip(["br", "gzip"]))
        #expect(!AcceptEncoding.acceptsGzip(["gzip", "gzip;q=0"]))
        #expect(!AcceptEncoding.acceptsGzip(["*", "x-gzip; q=0"]))
        #expect(!AcceptEncoding.acceptsGzip([]))
        #expect(AcceptEncoding.acceptsGzip(["", "*"]))
    }

    @Test func theClientViewReadsEveryFieldOfItsThreeNamesInAnyCase() {
        let headers = HTTPHeaders([
            (name: "accept", value: "application/json"), (name: "If-None-Match", value: #""a""#),
            (name: "ACCEPT", value: "application/graphql-response+json"), (name: "accept-encoding", value: "br"),
            (name: "if-none-match", value: #""b", "c""#), (name: "Accept-Encoding", value: "gzip"),
            (name: "Accepts", value: "x"), (name: "If-None-Matc", value: "x"),
        ])
        let request = HTTPRequest(method: .get, target: "/graphql", headers: headers)
        let view = ClientView(request: request, corsHeaders: [:], vary: nil, compressor: Gzip())
        #expect(view.isGET)
        #expect(view.ifNoneMatch == [#""a""#, #""b", "c""#])
        #expect(view.wantsGraphQLResponseJSON)
        #expect(view.gzip != nil)
        // Without a compressor nothing is gzipped, whatever the client accepts.
        #expect(ClientView(request: request, corsHeaders: [:], vary: nil).gzip == nil)
        // Neither Accept field naming the GraphQL media type, and gzip refused in a second field.
        let plain = HTTPRequest(method: .post, target: "/graphql", headers: HTTPHeaders([
            (name: "Accept", value: "application/json"), (name: "Accept", value: "*/*"),
            (name: "Accept-Encoding", value: "gzip"), (name: "Accept-Encoding", value: "gzip;q=0"),
        ]))
        let plainView = ClientView(request: plain, corsHeaders: [:], vary: nil, compressor: Gzip())
        #expect(!plainView.isGET)
        #expect(!plainView.wantsGraphQLResponseJSON)
        #expect(plainView.ifNoneMatch.isEmpty)
        #expect(plainView.gzip == nil)
    }
}
