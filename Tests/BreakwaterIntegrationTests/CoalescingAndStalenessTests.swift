// Request coalescing across event loops, stale-while-revalidate and stale-if-error (README "The response cache"),
// against the real binary; these wait for real time to pass, in fractions of a second.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct CoalescingAndStalenessTests {
    static let slow = "query Slow { slow(ms: 600) }"

    @Test func fiftyConcurrentMissesSendOneOriginRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let results = Collected<HTTPClientResponse?>()
        concurrently(50) { _ in
            results.append(try? proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(Self.slow))}"#))
        }
        let all = results.all
        #expect(all.count == 50)
        #expect(all.allSatisfy { $0?.status == 200 }, "\(all.map { $0?.status ?? -1 })")
        #expect(all.allSatisfy { $0?.header("X-Cache") == "MISS" }, "\(all.map { $0?.header("X-Cache") ?? "-" })")
        #expect(Set(all.map { $0?.body ?? [] }).count == 1)
        let counters = try origin.counters()
        #expect((counters["byOperation"] as? [String: Any])?["Slow"] as? Int == 1)
    }

    /// A fetch nobody waits on any more is cancelled (docs/reference/client-protocol.md: a client
    /// that closes with a miss outstanding, as a reset stream); the next misses fetch once again,
    /// together. A fetch others still wait on goes on: `HTTP2StreamResetTests`.
    @Test func theOnlyWaiterDisconnectingCancelsTheFetchAndTheNextMissesShareANewOne() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let body = Array(#"{"query":\#(APQ.jsonString(Self.slow))}"#.utf8)
        // The first client starts the fetch and hangs up at once.
        let first = try KeepAliveClient(port: proxy.port)
        try first.write(Array("POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
        // Its fetch has reached the origin when the client goes.
        #expect(try eventually { try origin.requests("Slow") == 1 })
        first.close()
        // The proxy has seen it go (a miss arriving before would share the fetch instead).
        #expect(try eventually {
            (try proxy.stats()["upstream"] as? [String: Any])?["cancelled"] as? Int == 1
        })
        let results = Collected<HTTPClientResponse?>()
        concurrently(5) { _ in
            results.append(try? proxy.client.post("/graphql", json: String(decoding: body, as: UTF8.self)))
        }
        #expect(results.all.allSatisfy { $0?.status == 200 })
        #expect(try origin.requests("Slow") == 2)
        // The proxy is still healthy.
        #expect(try proxy.client.post("/graphql", json: String(decoding: body, as: UTF8.self)).header("X-Cache") == "HIT")
    }

    @Test func staleEntryIsServedAtOnceWhileOneBackgroundRequestRefreshesIt() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: """
            persisted_queries:
              store: ""
            cache:
              stale_while_revalidate: 30s
              rules:
                - operation: GetLaunchDetail
                  ttl: 300ms
            """)
        let query = #"{"query":"query GetLaunchDetail { launch(id: \"11\") { id } }"}"#
        #expect(try proxy.client.post("/graphql", json: query).header("X-Cache") == "MISS")
        // The origin now takes 1 s: asked until the 300 ms TTL runs out, the first STALE answer
        // starts the one refresh, and comes at once.
        try origin.setFaults(#"{"delayMs": 1000}"#)
        var first: (answer: String?, took: Duration) = (nil, .zero)
        #expect(
            try eventually(within: .seconds(5), every: .milliseconds(20)) {
                let asked = ContinuousClock.now
                first.answer = try proxy.client.post("/graphql", json: query).header("X-Cache")
                first.took = ContinuousClock.now - asked
                return first.answer != "HIT"
            })
        #expect(first.answer == "STALE")
        #expect(first.took < .milliseconds(350), "a stale answer does not wait for the origin: \(first.took)")
        let started = ContinuousClock.now
        let stale = Collected<HTTPClientResponse?>()
        concurrently(5) { _ in
            stale.append(try? proxy.client.post("/graphql", json: query))
        }
        #expect(ContinuousClock.now - started < .milliseconds(350), "stale answers do not wait for the origin")
        #expect(stale.all.allSatisfy { $0?.header("X-Cache") == "STALE" })
        // The refresh lands (STALE until then, from the one background fetch), and it was one
        // fetch, whatever the number of stale answers.
        #expect(try eventually { try proxy.client.post("/graphql", json: query).header("X-Cache") == "HIT" })
        #expect(try origin.requests("GetLaunchDetail") == 2)
    }

    @Test(arguments: [#"{"status": 500, "statusBody": "html"}"#, #"{"status": 503, "statusBody": "json"}"#, #"{"close": true}"#, #"{"delayMs": 1500}"#])
    func originFailureServesTheStaleEntry(fault: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: """
            persisted_queries:
              store: ""
            origin:
              timeout: 400ms
            cache:
              stale_while_revalidate: 0s
              stale_if_error: 5m
              rules:
                - operation: GetLaunchDetail
                  ttl: 200ms
            """)
        let query = #"{"query":"query GetLaunchDetail { launch(id: \"12\") { id } }"}"#
        let fresh = try proxy.client.post("/graphql", json: query)
        #expect(fresh.header("X-Cache") == "MISS")
        // The origin fails from now on: HITs until the 200 ms TTL runs out, then the stale entry.
        try origin.setFaults(fault)
        var response = fresh
        #expect(
            try eventually(within: .seconds(6), every: .milliseconds(20)) {
                response = try proxy.client.post("/graphql", json: query)
                return response.header("X-Cache") != "HIT"
            })
        #expect(response.status == 200, "\(fault)")
        #expect(response.header("X-Cache") == "STALE")
        #expect(response.body == fresh.body)
    }

    @Test func withoutAStaleEntryAnOriginFailureIsReported() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"status": 500, "statusBody": "html"}"#)
        let proxy = try cachingProxy(origin: origin)
        let response = try proxy.client.post("/graphql", json: #"{"query":"query GetLaunchDetail { launch(id: \"13\") { id } }"}"#)
        #expect(response.status == 502)
    }
}

/// Runs `body` on `count` threads at once (DispatchQueue.concurrentPerform runs only as many as
/// there are cores) and waits for all of them.
func concurrently(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}
