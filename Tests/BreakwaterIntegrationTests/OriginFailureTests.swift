// The proxy's answers when the origin fails: 502 and 504 with GraphQL error bodies (SPEC 4).

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct OriginFailureTests {
    let query = #"{"query":"{ launches(pageSize: 1) { cursor } }"}"#

    @Test func unreachableOriginGivesBadGateway() throws {
        let nothingListens = FreePort.allocate()
        let proxy = try ProxyProcess(origin: "http://127.0.0.1:\(nothingListens)/graphql")
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        #expect(firstError(response).code == "ORIGIN_UNAVAILABLE")
        #expect(response.header("Content-Type") == "application/json")
    }

    @Test func hangingOriginGivesGatewayTimeout() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"delayMs": 3000}"#)
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  timeout: 300ms\npersisted_queries:\n  store: \"\"\n")
        let started = ContinuousClock.now
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 504)
        #expect(firstError(response).code == "ORIGIN_TIMEOUT")
        #expect(ContinuousClock.now - started < .seconds(2))
        // The pool recovers: the next request, without the fault, succeeds.
        try origin.setFaults(#"{"delayMs": 0}"#)
        #expect(try proxy.client.post("/graphql", json: query).status == 200)
    }

    @Test func originClosingTheConnectionGivesBadGateway() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"close": true}"#)
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        try origin.setFaults(#"{"close": false}"#)
        #expect(try proxy.client.post("/graphql", json: query).status == 200)
    }

    @Test func htmlErrorPageBecomesBadGatewayAndIsHidden() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"status": 500, "statusBody": "html"}"#)
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        #expect(!response.text.lowercased().contains("<html"))
        #expect(firstError(response).message?.contains("500") == true)
    }

    @Test func graphQLErrorFromTheOriginIsRelayedAsSent() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"status": 500, "statusBody": "json"}"#)
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 500)
        #expect(firstError(response).message == "forced")
    }

    @Test func validationErrorFromTheOriginIsRelayed() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: #"{"query":"{ noSuchField }"}"#)
        #expect(response.status == 400)
        #expect(firstError(response).message?.contains("noSuchField") == true)
    }
}
