// README "The origin side" and "The response cache": an answer fetched for one value of a forwarded
// header the answer may depend on is never served for another, and an origin's `Vary` that the
// key cannot follow keeps the answer out of the cache. Before keyed headers, a French answer
// reached an English client.

import BreakwaterTesting
import Testing

@Suite(.serialized) struct VaryTests {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"

    private func get(_ proxy: ProxyProcess, language: String?) throws -> HTTPClientResponse {
        let body = #"{"query":\#(APQ.jsonString(Self.detail)),"variables":{"id":"3"}}"#
        return try proxy.client.post("/graphql", json: body, headers: language.map { [("Accept-Language", $0)] } ?? [])
    }

    private func originRequests(_ origin: DemoOriginProcess) throws -> Int {
        try origin.counters()["requests"] as? Int ?? -1
    }

    @Test func eachAcceptLanguageGetsItsOwnEntry() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        try origin.setFaults(#"{"vary":"Accept-Language"}"#)
        #expect(try get(proxy, language: "fr").header("X-Cache") == "MISS")
        #expect(try get(proxy, language: "en").header("X-Cache") == "MISS", "an English client must not get the French entry")
        #expect(try get(proxy, language: nil).header("X-Cache") == "MISS")
        let french = try get(proxy, language: "fr")
        #expect(french.header("X-Cache") == "HIT")
        // Accept-Encoding too: with compression on, the answer's form depends on it (README "The origin side" and "The response cache").
        #expect(french.headers(named: "Vary") == ["Accept, Accept-Language, Accept-Encoding"])
        #expect(try get(proxy, language: "en").header("X-Cache") == "HIT")
        #expect(try originRequests(origin) == 3)
    }

    @Test(arguments: ["*", "Authorization", "X-Request-Id"])
    func varyTheKeyCannotFollowIsNeverStored(vary: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        try origin.setFaults(#"{"vary":"\#(vary)"}"#)
        #expect(try get(proxy, language: nil).header("X-Cache") == "BYPASS")
        #expect(try get(proxy, language: nil).header("X-Cache") == "BYPASS")
        #expect(try originRequests(origin) == 2)
    }
}
