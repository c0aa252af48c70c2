// A plain GraphQL POST through the real proxy to the real demo origin, and back.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct ProxyPassThroughTests {
    static let launchesQuery =
        #"{"query":"query GetLaunches { launches(pageSize: 3) { launches { id site mission { name } } } }","operationName":"GetLaunches"}"#

    @Test func plainPostReturnsLaunchDataFromTheOrigin() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: Self.launchesQuery)
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        let data = response.jsonObject?["data"] as? [String: Any]
        let launches = (data?["launches"] as? [String: Any])?["launches"] as? [[String: Any]]
        #expect(launches?.count == 3)
        #expect(launches?.first?["id"] as? String != nil)
        // Byte for byte what the origin answers directly.
        let direct = try origin.client.post("/graphql", json: Self.launchesQuery)
        #expect(response.body == direct.body)
        #expect(response.header("X-Cache") == "BYPASS")
    }

    @Test func variablesAndOperationNameReachTheOrigin() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let body =
            #"{"query":"query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }","operationName":"GetLaunchDetail","variables":{"id":"60"}}"#
        let response = try proxy.client.post("/graphql", json: body)
        let launch = (response.jsonObject?["data"] as? [String: Any])?["launch"] as? [String: Any]
        #expect(launch?["id"] as? String == "60")
        let counters = try origin.counters()
        #expect((counters["byOperation"] as? [String: Any])?["GetLaunchDetail"] as? Int == 1)
        #expect((counters["byMethod"] as? [String: Any])?["POST"] as? Int == 1)
    }

    @Test func forwardsListedHeadersAndAddsProxyHeaders() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post(
            "/graphql", json: #"{"query":"{ me { email } }"}"#,
            headers: [("Authorization", "ada@example.com"), ("X-Secret", "no"), ("X-Request-Id", "req-7")])
        #expect(response.status == 200)
        let me = (response.jsonObject?["data"] as? [String: Any])?["me"] as? [String: Any]
        #expect(me?["email"] as? String != nil)
        let seen = try #require(try origin.counters()["lastHeaders"] as? [String: Any])
        #expect(seen["authorization"] as? String == "ada@example.com")
        #expect(seen["x-request-id"] as? String == "req-7")
        #expect(seen["x-secret"] == nil)
        #expect(seen["x-forwarded-for"] as? String == "127.0.0.1")
        #expect(seen["x-forwarded-proto"] as? String == "http")
        #expect(seen["via"] as? String == "1.1 breakwater")
    }

    /// docs/reference/upstream.md, "Headers sent": `Host` from `origin.url`, `Accept-Encoding:
    /// gzip` and Breakwater's own `Content-Length`, once each, even when `origin.forward_headers`
    /// lists the client's fields of those names (in any case); the POST's start is written once
    /// per origin and shared by every request.
    @Test func theOriginGetsItsOwnHostEncodingAndLengthWhateverTheClientSentOrTheListNames() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            // No schema: with one learnt meanwhile (introspection at start races the first request)
            // the document would be rewritten and its length change between the two rounds.
            yaml: "origin:\n  forward_headers: [host, ACCEPT-ENCODING, Content-Length, transfer-encoding, Authorization]\n"
                + "  schema: off\npersisted_queries:\n  store: \"\"\n")
        let body = #"{"query":"{ me { email } }"}"#
        for round in 0..<2 {
            let response = try proxy.client.post(
                "/graphql", json: body,
                headers: [("Accept-Encoding", "br"), ("Authorization", "ada-\(round)@example.com")])
            #expect(response.status == 200)
            let seen = try #require(try origin.counters()["lastHeaders"] as? [String: Any])
            #expect(seen["host"] as? String == "127.0.0.1:\(origin.port)")
            #expect(seen["accept-encoding"] as? String == "gzip")
            #expect(seen["content-length"] as? String == "\(body.utf8.count)")
            #expect(seen["transfer-encoding"] == nil)
            #expect(seen["authorization"] as? String == "ada-\(round)@example.com")
            #expect(seen["x-forwarded-for"] as? String == "127.0.0.1")
            #expect(seen["x-forwarded-proto"] as? String == "http")
        }
        #expect((try origin.counters()["byMethod"] as? [String: Any])?["POST"] as? Int == 2)
    }

    @Test func keepAliveConnectionServesManyRequestsAndPoolQueuesBeyondItsBound() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: "origin:\n  max_connections: 2\npersisted_queries:\n  store: \"\"\n")
        let connection = try KeepAliveClient(port: proxy.port)
        for _ in 0..<5 {
            #expect(try connection.post("/graphql", json: Self.launchesQuery).status == 200)
        }
        connection.close()
        // 12 concurrent slow requests (distinct, so none coalesce) through 2 connections per loop.
        let statuses = Collected<Int>()
        concurrently(12) { index in
            let status = try? proxy.client.post("/graphql", json: #"{"query":"{ slow(ms: \#(100 + index)) }"}"#).status
            statuses.append(status ?? -1)
        }
        #expect(statuses.all == Array(repeating: 200, count: 12))
        #expect(try origin.counters()["requests"] as? Int == 17)
    }
}
