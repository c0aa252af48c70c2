// The proxy's answers when the origin fails (README, "The origin side"): 502 and 504 with
// GraphQL error bodies, each carrying its code and `X-Cache: BYPASS`, and counted by code in the
// access log, `/stats` and `/metrics`, by reason in `breakwater_upstream_errors_total`.

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

    @Test func anExchangeReusedAfterAnAnswerStillHasItsDeadline() throws {
        // The pool begins the next request with the exchange of an answered one: its deadline
        // must run again for the new request. Distinct documents: no cache hit.
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  timeout: 300ms\npersisted_queries:\n  store: \"\"\n")
        #expect(try proxy.client.post("/graphql", json: #"{"query":"{ launches(pageSize: 2) { cursor } }"}"#).status == 200)
        try origin.setFaults(#"{"delayMs": 3000}"#)
        let started = ContinuousClock.now
        let response = try proxy.client.post("/graphql", json: #"{"query":"{ launches(pageSize: 3) { cursor } }"}"#)
        #expect(response.status == 504)
        #expect(firstError(response).code == "ORIGIN_TIMEOUT")
        #expect(ContinuousClock.now - started < .seconds(2))
        // Each reused exchange's deadline runs from its own start: five answers of 100 ms one
        // after another, 500 ms in all, each within its 300 ms.
        try origin.setFaults(#"{"delayMs": 100}"#)
        for size in 4...8 {
            let answer = try proxy.client.post("/graphql", json: #"{"query":"{ launches(pageSize: \#(size)) { cursor } }"}"#)
            #expect(answer.status == 200)
        }
    }

    @Test func aLaterExchangeTimesOutAtItsOwnDeadlineAfterAnEarlierOneAnswered() throws {
        // One loop, one pool: the deadline timer is set for the first exchange; it answers in
        // time, and the timer, firing at that deadline, must move on to the second exchange's.
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  timeout: 400ms\npersisted_queries:\n  store: \"\"\n", threads: 1)
        let quick = Collected<HTTPClientResponse?>()
        let group = DispatchGroup()
        group.enter()
        Thread {
            quick.append(try? proxy.client.post("/graphql", json: #"{"query":"query SlowA { slow(ms: 100) }"}"#))
            group.leave()
        }.start()
        #expect(try eventually { try origin.requests("SlowA") == 1 })
        let started = ContinuousClock.now
        let late = try proxy.client.post("/graphql", json: #"{"query":"query SlowB { slow(ms: 3000) }"}"#)
        group.wait()
        #expect(quick.all.first??.status == 200)
        #expect(late.status == 504)
        #expect(firstError(late).code == "ORIGIN_TIMEOUT")
        #expect(ContinuousClock.now - started < .seconds(2))
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

    /// Every error answer the origin's failures cause carries its code in the body, the access
    /// log, `/stats` `errors` and `breakwater_errors_total`, says `X-Cache: BYPASS`, and counts
    /// its upstream reason.
    @Test func everyOriginFailureIsCountedByCodeAndReason() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "origin:\n  timeout: 300ms\npersisted_queries:\n  store: \"\"\n"
                + "logging:\n  format: json\n  access_log: stdout\n")
        let cases: [(label: String, faults: String, status: Int, code: String, reason: String)] = [
            ("page", #"{"reset": true, "status": 500, "statusBody": "html"}"#, 502, "ORIGIN_ERROR", "5xx"),
            ("relayed", #"{"reset": true, "status": 503, "statusBody": "json"}"#, 503, "ORIGIN_ERROR", "5xx"),
            ("slow", #"{"reset": true, "delayMs": 3000}"#, 504, "ORIGIN_TIMEOUT", "timeout"),
            ("closed", #"{"reset": true, "close": true}"#, 502, "ORIGIN_UNAVAILABLE", "reset"),
        ]
        for (index, failure) in cases.enumerated() {
            try origin.setFaults(failure.faults)
            let response = try proxy.client.post(
                "/graphql", json: #"{"query":"query Q\#(index) { __typename }"}"#,
                headers: [("X-Request-Id", "fail-\(failure.label)")])
            #expect(response.status == failure.status, "\(failure.label)")
            #expect(response.header("X-Cache") == "BYPASS", "\(failure.label)")
            if failure.status != 503 { #expect(firstError(response).code == failure.code, "\(failure.label)") }
            // The access line (the origin's warning names the request id too).
            let line = try LoggingTests.jsonLine(
                proxy.process, containing: #""request_id":"fail-\#(failure.label)","user_agent""#)
            #expect(line["error_code"] as? String == failure.code, "\(failure.label)")
            #expect(line["cache"] as? String == "BYPASS", "\(failure.label)")
            #expect(line["bypass_reason"] as? String == "origin-failure", "\(failure.label)")
        }
        try origin.setFaults(#"{"reset": true}"#)
        let stats = try proxy.stats()
        let errors = try #require(stats["errors"] as? [String: Any])
        #expect(errors["ORIGIN_ERROR"] as? Int == 2)
        #expect(errors["ORIGIN_TIMEOUT"] as? Int == 1)
        #expect(errors["ORIGIN_UNAVAILABLE"] as? Int == 1)
        let metrics = try proxy.admin.get("/metrics").text
        for series in [
            #"breakwater_errors_total{code="ORIGIN_ERROR"} 2"#, #"breakwater_errors_total{code="ORIGIN_TIMEOUT"} 1"#,
            #"breakwater_errors_total{code="ORIGIN_UNAVAILABLE"} 1"#, #"breakwater_responses_total{status="502"} 2"#,
            #"breakwater_upstream_errors_total{reason="5xx"} 2"#, #"breakwater_upstream_errors_total{reason="timeout"} 1"#,
            #"breakwater_upstream_errors_total{reason="reset"} 1"#, #"breakwater_bypass_total{reason="origin-failure"} 4"#,
        ] {
            #expect(metrics.contains("\n" + series + "\n"), "\(series)")
        }
    }

    @Test func refusedConnectionIsCountedAsRefused() throws {
        let nothingListens = FreePort.allocate()
        let proxy = try ProxyProcess(origin: "http://127.0.0.1:\(nothingListens)/graphql")
        let response = try proxy.client.post("/graphql", json: query)
        #expect(response.status == 502)
        #expect(response.header("X-Cache") == "BYPASS")
        let metrics = try proxy.admin.get("/metrics").text
        #expect(metrics.contains("\n" + #"breakwater_upstream_errors_total{reason="refused"} 1"# + "\n"), "\(metrics)")
        #expect(metrics.contains("\n" + #"breakwater_errors_total{code="ORIGIN_UNAVAILABLE"} 1"# + "\n"))
    }

    /// A request the HTTP engine refuses before it exists (framing it cannot trust) is an error
    /// answer too: its code reaches `/stats`, `/metrics` and the access log (method `null`).
    @Test func requestsTheHTTPEngineRefusesAreCountedAndLogged() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n  access_log: stdout\n")
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        defer { connection.close() }
        let wire = "POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n"
        try connection.write(Array(wire.utf8))
        let response = try #require(try connection.readResponse(requestMethod: "POST", timeout: .seconds(5)))
        #expect(response.status == 400)
        #expect(firstError(response).code == "BAD_REQUEST")
        let line = try LoggingTests.jsonLine(proxy.process, containing: #""status":400"#)
        #expect(line["error_code"] as? String == "BAD_REQUEST")
        #expect(line.keys.contains("method") && line["method"] is NSNull, "\(line)")
        let errors = try #require(try proxy.stats()["errors"] as? [String: Any])
        #expect(errors["BAD_REQUEST"] as? Int == 1)
        let metrics = try proxy.admin.get("/metrics").text
        #expect(metrics.contains("\n" + #"breakwater_errors_total{code="BAD_REQUEST"} 1"# + "\n"))
        #expect(metrics.contains("\n" + #"breakwater_responses_total{status="400"} 1"# + "\n"))
    }
}
