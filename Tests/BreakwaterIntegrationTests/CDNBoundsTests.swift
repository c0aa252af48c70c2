// The bounds on what clients can make Breakwater send to a CDN (docs/CDN.md, "Bounds";
// RELIABILITY.md, threat model), live: a flood of mutations whose answers each name 1,000
// entities, against a slow Cloudflare stand-in and a small max_queue, never purges everything,
// and costs one call per round.

import BreakwaterTesting
import Foundation
import Synchronization
import Testing

@Suite(.serialized) struct CDNBoundsTests {
    /// An origin whose every answer names `count` launches never named before.
    static func manyEntitiesOrigin(count: Int) throws -> ScriptedOrigin {
        let next = Atomic<Int>(0)
        return try ScriptedOrigin { fd, _ in
            let first = next.add(count, ordering: .relaxed).oldValue
            let launches = (first..<first + count).map { #"{"__typename":"Launch","id":"\#($0)"}"# }
            let body = Array(#"{"data":{"bookTrips":{"launches":[\#(launches.joined(separator: ","))]}}}"#.utf8)
            ScriptedOrigin.write(
                fd,
                Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8)
                    + Array("Connection: close\r\n\r\n".utf8) + body)
        }
    }

    @Test func aMutationFloodNeverPurgesEverythingAndCostsOneCallPerRound() throws {
        let answerTime = 0.2
        let api = try CDNAPIRecorder(delay: .milliseconds(200))
        let origin = try Self.manyEntitiesOrigin(count: 1_000)
        defer { origin.stop() }
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                origin:
                  schema: "off"
                persisted_queries:
                  store: ""
                cache:
                  tag_header: Cache-Tag
                cdn:
                  targets:
                    - kind: cloudflare
                      zone_id: 023e105f4ecef8ad9ca31a8372d0c353
                      token: "cloudflare-test-token"
                      api_url: "\(api.base)/client/v4"
                  max_queue: 100
                """,
            environment: ["SSL_CERT_FILE": api.certificate.certificate, "SSL_CERT_DIR": "/nonexistent"])
        let mutation = #"{"query":"mutation Book { bookTrips { launches { __typename id } } }"}"#
        let started = ContinuousClock.now
        let mutations = Atomic<Int>(0)
        let refused = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            guard let connection = try? KeepAliveClient(port: proxy.port) else { return }
            // At least 3 s and 50 mutations, however loaded the machine (at most 30 s).
            while ContinuousClock.now - started < .seconds(30)
                && (ContinuousClock.now - started < .seconds(3) || mutations.load(ordering: .relaxed) < 50)
            {
                let status = (try? connection.post("/graphql", json: mutation))?.status
                if status == 200 { mutations.add(1, ordering: .relaxed) } else { refused.add(1, ordering: .relaxed) }
            }
        }
        #expect(mutations.load(ordering: .relaxed) >= 50, "a flood: \(mutations.load(ordering: .relaxed)) mutations")
        #expect(refused.load(ordering: .relaxed) == 0)
        // Settled: nothing queued, every call answered.
        #expect(
            try eventually(within: .seconds(30)) {
                let figures = try CDNContractTests.cdn(proxy, "cloudflare")
                return figures["queued"] as? Int == 0 && figures["sent"] as? Int == api.requests.count
            })
        let elapsed = ContinuousClock.now - started
        let requests = api.requests
        let bodies = requests.map { (CDNContractTests.body($0) as? [String: Any]) ?? [:] }
        #expect(!bodies.contains { $0["purge_everything"] != nil }, "a client never empties the CDN")
        // Every mutation's 1,000 launches collapse to `Launch`: each round is one call, and rounds
        // go one at a time, each answered after `answerTime`.
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bound = Int(seconds / answerTime) + 1
        #expect(requests.count <= bound, "\(requests.count) calls in \(seconds) s; at most \(bound)")
        for body in bodies { #expect(body["tags"] as? [String] == ["Launch"]) }
        let figures = try CDNContractTests.cdn(proxy, "cloudflare")
        #expect(figures["collapses"] as? Int ?? 0 >= mutations.load(ordering: .relaxed))
        #expect(figures["failed"] as? Int == 0)
    }
}

extension CDNBoundsTests {
    /// At the stop, a call waiting for its retry goes once more; failing again, its purge is
    /// logged as lost (docs/CDN.md, "Batching, retries and the queue bound").
    @Test func aRetryWaitingAtTheStopGoesOnceMoreThenIsLoggedAsLost() throws {
        let api = try CDNAPIRecorder(failing: (100, 503))
        let proxy = try CDNContractTests().proxy(
            api, tagHeader: "Cache-Tag",
            targets: """
                    - kind: cloudflare
                      zone_id: 023e105f4ecef8ad9ca31a8372d0c353
                      token: "cloudflare-test-token"
                      api_url: "\(api.base)/client/v4"
                """, settings: "  batch_window: 0ms\n  retries: 10")
        try CDNContractTests().purge(proxy, #"{"type":"Launch","id":"7"}"#)
        _ = try api.waitForRequests(1)
        #expect(try eventually { try CDNContractTests.cdn(proxy, "cloudflare")["retried"] as? Int == 1 })
        let before = api.requests.count
        proxy.process.signal(SIGTERM)
        #expect(proxy.process.waitForExit(timeout: .seconds(15)) != nil)
        #expect(eventually { api.requests.count > before }, "sent once more at the stop")
        let lost = proxy.process.output.first { $0.contains("cdn purges lost at stop") }
        #expect(lost?.contains("HTTP 503") == true, "\(lost ?? "no line")")
    }
}
