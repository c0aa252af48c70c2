// Batched POSTs against the real binary (README "GraphQL over HTTP rules"): answers in order, each element
// through the full path, one bad element not failing the others, X-Cache HIT only when all hit,
// server.max_batch and the empty array refused, mutations forwarded and never cached.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct BatchTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
    static let launches = #"{"query":"query GetLaunches { launches(pageSize: 2) { cursor } }"}"#

    @Test func elementsAreAnsweredInOrderEachThroughTheFullPath() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let unknownHash = APQ.hashOnlyPOST("{ unknown }", operationName: nil)
        let body = "[\(Self.detail), {\"query\": \"{ launch( }\"}, \(unknownHash), \(Self.launches)]"
        let first = try proxy.client.post("/graphql", json: body)
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "MISS")
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [[String: Any]])
        #expect(answers.count == 4)
        #expect(((answers[0]["data"] as? [String: Any])?["launch"] as? [String: Any])?["id"] as? String == "92")
        #expect(answers[1]["errors"] != nil, "the bad element gets its own error")
        let notFound = (answers[2]["errors"] as? [[String: Any]])?.first?["message"] as? String
        #expect(notFound == "PersistedQueryNotFound")
        #expect((answers[3]["data"] as? [String: Any])?["launches"] != nil)
        #expect(first.header("X-Request-Id") != nil)

        let both = "[\(Self.detail), \(Self.launches)]"
        _ = try proxy.client.post("/graphql", json: both)
        let again = try proxy.client.post("/graphql", json: both)
        #expect(again.header("X-Cache") == "HIT", "every element was a hit")
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT", "elements share the cache")
    }

    @Test func tooManyOrNoElementsIs400() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "server:\n  max_batch: 3\n")
        let four = "[" + Array(repeating: Self.launches, count: 4).joined(separator: ",") + "]"
        let tooMany = try proxy.client.post("/graphql", json: four)
        #expect(tooMany.status == 400)
        #expect(firstError(tooMany).message?.contains("max_batch") == true)
        #expect(try proxy.client.post("/graphql", json: "[]").status == 400)
        #expect(try proxy.client.post("/graphql", json: "[ ]").status == 400)
        #expect(try proxy.client.post("/graphql", json: "[\(Self.launches),]").status == 400)
        let notAnObject = try proxy.client.post("/graphql", json: "[1]")
        #expect(notAnObject.status == 200)
        let element = try #require(try JSONSerialization.jsonObject(with: Data(notAnObject.body)) as? [[String: Any]])
        let message = (element.first?["errors"] as? [[String: Any]])?.first?["message"] as? String
        #expect(message == "POST body missing, invalid Content-Type, or JSON object has no keys.")
        let three = "[" + Array(repeating: Self.launches, count: 3).joined(separator: ",") + "]"
        #expect(try proxy.client.post("/graphql", json: three).status == 200)
    }

    /// A batch is a POST like any other: a body that is not JSON is refused whole with 415 (no
    /// element reaches the origin), and with CORS for a listed origin the answer varies by Origin.
    @Test func aNonJSONBatchIs415AndCORSAnswersVaryByOrigin() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(
            origin: origin, extra: "server:\n  cors:\n    allow_origins: [\"https://app.example.com\"]\n")
        let both = "[\(Self.detail), \(Self.launches)]"
        let plain = try proxy.client.send(
            method: "POST", target: "/graphql", headers: [("Content-Type", "text/plain")], body: Array(both.utf8))
        #expect(plain.status == 415)
        #expect(firstError(plain).code == "UNSUPPORTED_MEDIA_TYPE")
        let cors = try proxy.client.post("/graphql", json: both, headers: [("Origin", "https://app.example.com")])
        #expect(cors.status == 200)
        #expect(cors.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(cors.headers(named: "Vary").contains { $0.contains("Origin") }, "\(cors.headers)")
    }

    @Test func aMutationInABatchIsForwardedEveryTimeAndNeverCached() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let login = #"{"query":"mutation Login { login(email: \"ada@example.com\") }"}"#
        let body = "[\(login), \(Self.detail)]"
        _ = try proxy.client.post("/graphql", json: body)
        let second = try proxy.client.post("/graphql", json: body)
        #expect(second.header("X-Cache") == "MISS")
        let answers = try #require(try JSONSerialization.jsonObject(with: Data(second.body)) as? [[String: Any]])
        #expect((answers[0]["data"] as? [String: Any])?["login"] is String)
        let byOperation = try #require(origin.counters()["byOperation"] as? [String: Any])
        #expect(byOperation["Login"] as? Int == 2)
        #expect(byOperation["GetLaunchDetail"] as? Int == 1)
    }
}
