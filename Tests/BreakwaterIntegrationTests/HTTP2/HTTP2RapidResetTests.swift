// Rapid reset against the origin (CVE-2023-44487; docs/reference/client-protocol.md, "HTTP/2"):
// connections that open and reset streams of distinct cache misses must not make the origin
// work for answers nobody reads. A reset stream's fetch is cancelled when no one else waits on
// it, reset streams whose fetches still run count against http2_max_streams, and premature
// resets past half a connection's streams end it with GOAWAY ENHANCE_YOUR_CALM.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized, .enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
struct HTTP2RapidResetTests {
    static let maxStreams = 16
    static let connections = 10
    static let streamsPerConnection = 1_000

    /// A GET of one launch by id: each `id` is its own cache key.
    static func launchPath(id: String) -> String {
        let query = #"query GetLaunchById($id: ID!) { launch(id: $id) { id site } }"#
        return "/graphql?"
            + URLEncoding.queryString([
                ("query", query), ("operationName", "GetLaunchById"), ("variables", #"{"id":"\#(id)"}"#),
            ])
    }

    @Test func resetStreamsOfDistinctMissesDoNotDriveTheOrigin() throws {
        let stack = try HTTP2Stack(server: "  http2_max_streams: \(Self.maxStreams)")
        try stack.origin.setFaults(#"{"delayMs": 300}"#)
        let before = try stack.origin.counters()["requests"] as? Int ?? 0
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: Self.connections) { connection in
            do {
                let observed = try stack.frames.run(
                    "rapid-reset", ["--streams", "\(Self.streamsPerConnection)"],
                    options: ["--path", Self.launchPath(id: "c\(connection)-STREAMINDEX"), "--quiet", "0.5"])
                results.add(observed)
            } catch {
                results.add(failure: "\(error)")
            }
        }
        #expect(results.failures.isEmpty)
        // A legitimate client's miss is still answered.
        let legitimate = try stack.frames.get(Self.launchPath(id: "legitimate"))
        #expect(legitimate.status == 200, "\(legitimate)")
        let fetches = (try stack.origin.counters()["requests"] as? Int ?? 0) - before
        print("rapid reset: \(Self.connections) x \(Self.streamsPerConnection) streams, \(fetches) origin fetches")
        #expect(
            fetches <= Self.connections * Self.maxStreams + 1,
            "\(fetches) origin fetches for \(Self.connections) connections of reset streams")
        #expect(results.observations.count == Self.connections)
        let calmed = results.observations.count { $0.goawayError == "ENHANCE_YOUR_CALM" }
        let refused = results.observations.reduce(0) { $0 + ($1.resets["REFUSED_STREAM"] ?? 0) }
        print("rapid reset: \(calmed) connections told ENHANCE_YOUR_CALM, \(refused) streams refused")
        for observed in results.observations {
            let refused = observed.resets["REFUSED_STREAM"] ?? 0
            #expect(observed.goawayError == "ENHANCE_YOUR_CALM" || refused > 0, "\(observed)")
        }
    }
}

/// What the attacking connections saw, gathered from their threads.
private final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var observed: [HTTP2Observation] = []
    private var failed: [String] = []

    func add(_ observation: HTTP2Observation) { lock.withLock { observed.append(observation) } }
    func add(failure: String) { lock.withLock { failed.append(failure) } }
    var observations: [HTTP2Observation] { lock.withLock { observed } }
    var failures: [String] { lock.withLock { failed } }
}
