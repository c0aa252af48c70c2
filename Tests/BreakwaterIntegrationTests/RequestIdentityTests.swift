// Request ids and tracing headers against the real binary (README "GraphQL over HTTP rules" and "The origin side"): a sane
// X-Request-Id is kept, anything else replaced; every answer carries one; the origin receives it
// and the default forwarded trace and Apollo client headers.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct RequestIdentityTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#

    @Test func aSaneClientIdIsReturnedAndForwarded() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let response = try proxy.client.post(
            "/graphql", json: Self.detail,
            headers: [
                ("X-Request-Id", "3f2a-01:z"), ("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
                ("tracestate", "vendor=1"), ("baggage", "tenant=acme"), ("apollographql-client-name", "web"),
                ("apollographql-client-version", "1.2.3"),
            ])
        #expect(response.header("X-Request-Id") == "3f2a-01:z")
        let seen = try #require(origin.counters()["lastHeaders"] as? [String: String])
        #expect(seen["x-request-id"] == "3f2a-01:z")
        // The trace goes on as a child span's: the same trace and flags, a new parent id
        // (docs/TRACING.md, "Trace context").
        let traceparent = try #require(seen["traceparent"])
        #expect(traceparent.hasPrefix("00-0af7651916cd43dd8448eb211c80319c-"))
        #expect(traceparent.hasSuffix("-01"))
        #expect(!traceparent.contains("b7ad6b7169203331"))
        #expect(seen["tracestate"] == "vendor=1")
        #expect(seen["baggage"] == "tenant=acme")
        #expect(seen["apollographql-client-name"] == "web")
        #expect(seen["apollographql-client-version"] == "1.2.3")
    }

    @Test(arguments: ["", "has space", String(repeating: "a", count: 129), "quote\"d", "semi;colon"])
    func anUnusableClientIdIsReplacedByANewOne(offered: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let response = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", offered)])
        let id = try #require(response.header("X-Request-Id"))
        #expect(id != offered)
        #expect(id.count == 32 && id.allSatisfy(\.isHexDigit))
        let seen = try #require(origin.counters()["lastHeaders"] as? [String: String])
        #expect(seen["x-request-id"] == id, "the origin gets the same id as the client")
    }

    @Test func everyAnswerCarriesAnIdHitsErrorsAndNotFoundAlike() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        var ids: Set<String> = []
        let answers = [
            try proxy.client.post("/graphql", json: Self.detail),
            try proxy.client.post("/graphql", json: Self.detail),  // a hit
            try proxy.client.post("/graphql", json: "{not json"),
            try proxy.client.get("/nowhere"),
            try proxy.client.send(method: "DELETE", target: "/graphql"),
        ]
        for answer in answers {
            let id = try #require(answer.header("X-Request-Id"), "status \(answer.status)")
            ids.insert(id)
        }
        #expect(answers[1].header("X-Cache") == "HIT")
        #expect(ids.count == answers.count, "each request gets its own id")
    }
}
