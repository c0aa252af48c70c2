// Live tests of the origin side of the engine: origin.timeout bounds the whole exchange, so an
// origin that trickles its answer is cut off, and requests queued for a pooled connection
// wait no longer than the timeout either (README "The origin side").

import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct FramingOriginTests {
    static let query = #"{"query":"query GetLaunchDetail { launch(id: \"1\") { id } }"}"#

    @Test func tricklingOriginIsCutOffAtTheTimeout() throws {
        let origin = try makeTricklingOrigin()
        defer { origin.stop() }
        let proxy = try ProxyProcess(
            origin: "http://127.0.0.1:\(origin.port)/graphql", yaml: "origin:\n  timeout: 1s\npersisted_queries:\n  store: \"\"\n")
        let started = ContinuousClock.now
        let response = try proxy.client.post("/graphql", json: Self.query)
        let elapsed = ContinuousClock.now - started
        #expect(response.status == 504)
        #expect(firstError(response).code == "ORIGIN_TIMEOUT")
        #expect(elapsed < .milliseconds(2500), "a byte every 100 ms held the request \(elapsed)")
    }

    @Test func requestsQueuedForAConnectionWaitNoLongerThanTheTimeout() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"delayMs": 3000}"#)
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  timeout: 500ms\n  max_connections: 1\npersisted_queries:\n  store: \"\"\n",
            threads: 1)
        let started = ContinuousClock.now
        let statuses = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            let body = #"{"query":"query Q\#(index) { launch(id: \"\#(index)\") { id } }"}"#
            statuses.append((try? proxy.client.post("/graphql", json: body).status) ?? -1)
        }
        let elapsed = ContinuousClock.now - started
        #expect(statuses.all == [504, 504, 504, 504])
        #expect(elapsed < .milliseconds(1800), "queued requests waited \(elapsed)")
    }
}

/// An origin that answers every connection with a head promising 100 bytes and then one byte
/// every 100 ms: each byte would reset an inactivity timer.
func makeTricklingOrigin() throws -> ScriptedOrigin {
    try ScriptedOrigin { fd, _ in
        ScriptedOrigin.write(fd, Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n".utf8))
        for _ in 0..<100 {
            guard ScriptedOrigin.write(fd, [32]) else { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}
