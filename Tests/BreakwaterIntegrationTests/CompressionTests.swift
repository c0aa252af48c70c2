// gzip (README "The response cache", "Compression") against the real binary: a client that accepts gzip gets
// the entry's compressed form, made once; others get identity; small answers and
// `server.compression: false` stay uncompressed; an origin's gzipped answer is decoded before it
// is parsed or stored.

import BreakwaterServer
import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct CompressionTests {
    /// Twenty launches: an answer well over the 1 KiB below which nothing is compressed.
    static let launches = #"{"query":"query GetLaunches { launches(pageSize: 20) { cursor launches { id site mission { name } } } }"}"#
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"3\") { id } }"}"#
    static let gzip = [("Accept-Encoding", "gzip, deflate, br")]

    @Test func aGzipClientGetsTheEntryCompressedOnceAndOthersIdentity() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let miss = try proxy.client.post("/graphql", json: Self.launches, headers: Self.gzip)
        #expect(miss.header("X-Cache") == "MISS")
        #expect(miss.header("Content-Encoding") == "gzip")
        #expect(miss.header("Vary")?.contains("Accept-Encoding") == true)
        let hit = try proxy.client.post("/graphql", json: Self.launches, headers: Self.gzip)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Content-Encoding") == "gzip")
        #expect(hit.body == miss.body, "the compressed form is made once per entry")
        let identity = try proxy.client.post("/graphql", json: Self.launches)
        #expect(identity.header("X-Cache") == "HIT")
        #expect(identity.header("Content-Encoding") == nil)
        #expect(identity.header("Vary")?.contains("Accept-Encoding") == true)
        #expect(identity.body.count > 1024)
        #expect(hit.body.count < identity.body.count)
        #expect(Gzip.gunzip(hit.body, limit: 1 << 20) == identity.body)
        // Each representation has its own strong ETag, and a conditional request matches its own.
        let gzipETag = try #require(hit.header("ETag"))
        #expect(gzipETag != identity.header("ETag"))
        let notModified = try proxy.client.post(
            "/graphql", json: Self.launches, headers: Self.gzip + [("If-None-Match", gzipETag)])
        #expect(notModified.status == 304)
        #expect(notModified.header("ETag") == gzipETag)
    }

    @Test func gzipWithWeightZeroIsRefused() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let answer = try proxy.client.post("/graphql", json: Self.launches, headers: [("Accept-Encoding", "gzip;q=0, identity")])
        #expect(answer.status == 200)
        #expect(answer.header("Content-Encoding") == nil)
        #expect(answer.jsonObject?["data"] != nil)
    }

    @Test func answersUnderOneKibibyteGoUncompressed() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        _ = try proxy.client.post("/graphql", json: Self.detail, headers: Self.gzip)
        let hit = try proxy.client.post("/graphql", json: Self.detail, headers: Self.gzip)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Content-Encoding") == nil)
        #expect(hit.body.count < 1024)
        #expect(hit.jsonObject?["data"] != nil)
    }

    @Test func compressionOffAnswersIdentityToEveryone() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "server:\n  compression: false")
        _ = try proxy.client.post("/graphql", json: Self.launches, headers: Self.gzip)
        let hit = try proxy.client.post("/graphql", json: Self.launches, headers: Self.gzip)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Content-Encoding") == nil)
        #expect(hit.header("Vary")?.contains("Accept-Encoding") == false)
        #expect(hit.jsonObject?["data"] != nil)
    }

    @Test func aGzippedOriginAnswerIsDecodedBeforeItIsParsedOrStored() throws {
        let site = String(repeating: "Kennedy Space Center ", count: 50)
        let answer = Array(#"{"data":{"launch":{"__typename":"Launch","id":"92","site":"\#(site)"}}}"#.utf8)
        let compressed = try #require(answer.withUnsafeBytes { Gzip().gzip($0) })
        let origin = try ScriptedOrigin { fd, request in
            // Only a request that asked for gzip gets it; anything else is an error the test sees.
            let asked = String(decoding: request, as: UTF8.self).lowercased().contains("accept-encoding: gzip")
            let body = asked ? compressed : Array(#"{"errors":[{"message":"gzip was not asked for"}]}"#.utf8)
            ScriptedOrigin.write(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n".utf8)
                + Array((asked ? "Content-Encoding: gzip\r\n" : "").utf8)
                + Array("Content-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body)
        }
        defer { origin.stop() }
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "persisted_queries:\n  store: \"\"\ncache:\n  rules:\n    - operation: GetLaunch\n      ttl: 1m\n")
        let query = #"{"query":"query GetLaunch { launch(id: \"92\") { __typename id site } }"}"#
        let miss = try proxy.client.post("/graphql", json: query)
        #expect(miss.status == 200)
        #expect(miss.header("Content-Encoding") == nil)
        #expect(miss.body == answer)
        // Stored: the decoded JSON was parsed (no errors, entity tags) and is served from the cache.
        #expect(miss.header("X-Cache") == "MISS")
        let hit = try proxy.client.post("/graphql", json: query)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.body == answer)
    }
}
