// An HTTP/1.1 client that closes its connection with pipelined misses outstanding
// (docs/reference/client-protocol.md, "HTTP/2": the same rule as a reset stream): the fetches
// nobody else waits on are cancelled, so the origin does not work for answers nobody reads.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized)
struct ClientAbortTests {
    static let connections = 10
    /// Under the 16 outstanding requests at which a connection stops reading (docs/ARCHITECTURE.md).
    static let pipelined = 15

    /// Each of `connections` connections sends `count` distinct misses at once, then closes.
    static func pipelineAndClose(_ count: Int, misses prefix: String, to stack: HTTP2Stack) throws {
        for connection in 0..<connections {
            let wire = (0..<count).map { index in
                let target = HTTP2RapidResetTests.launchPath(id: "\(prefix)-\(connection)-\(index)")
                return "GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n"
            }.joined()
            let client = try KeepAliveClient(port: stack.port, timeout: .seconds(10))
            try client.write(Array(wire.utf8))
            client.close()
        }
    }

    @Test func pipelinedMissesOfAClosedConnectionAreCancelled() throws {
        let stack = try HTTP2Stack()
        try stack.origin.setFaults(#"{"delayMs": 300}"#)
        let before = try stack.origin.counters()["requests"] as? Int ?? 0
        try Self.pipelineAndClose(Self.pipelined, misses: "h1", to: stack)
        // The origin's count settles once the fetches that were under way end.
        var last = -1
        var steady = 0
        let settled = try eventually(within: .seconds(60), every: .milliseconds(400)) {
            let now = try stack.origin.counters()["requests"] as? Int ?? 0
            steady = now == last ? steady + 1 : 0
            last = now
            return steady >= 3
        }
        #expect(settled)
        let fetches = last - before
        print("client abort: \(Self.connections) connections x \(Self.pipelined) misses, \(fetches) origin fetches")
        // Fewer than the 16 requests at which reading pauses: the close is read with them, and
        // their fetches are cancelled before they are written (one may go when the close comes
        // in a later read). Before, each connection made its 15.
        #expect(fetches <= Self.connections, "\(fetches) origin fetches")
        let legitimate = try stack.frames.get(HTTP2RapidResetTests.launchPath(id: "legitimate"))
        #expect(legitimate.status == 200, "\(legitimate)")
    }

    /// Past the 16 outstanding requests at which a connection stops reading: the close is seen
    /// while reading is paused, and the fetches already under way stop there. Without the watch
    /// each connection's first 16 ran to their answers, then reading went on and sent the next 16.
    @Test func aCloseSeenWhileReadingIsPausedCancelsTheOutstandingFetches() throws {
        let stack = try HTTP2Stack()
        try stack.origin.setFaults(#"{"delayMs": 1500}"#)
        let before = try stack.origin.counters()["requests"] as? Int ?? 0
        let pipelined = 100
        try Self.pipelineAndClose(pipelined, misses: "paused", to: stack)
        // Each connection's outstanding misses are cancelled (most before their request is even
        // written), long before the origin's 1.5 s answer; the origin's count then settles.
        var fetches = -1
        var cancelled = 0
        var steady = 0
        let stopped = try eventually(within: .seconds(30), every: .milliseconds(300)) {
            let now = (try stack.origin.counters()["requests"] as? Int ?? 0) - before
            steady = now == fetches ? steady + 1 : 0
            fetches = now
            cancelled = (try stack.proxy.stats()["upstream"] as? [String: Any])?["cancelled"] as? Int ?? 0
            return cancelled >= Self.connections && steady >= 3
        }
        print("paused close: \(Self.connections) connections x \(pipelined) misses, \(fetches) origin fetches, \(cancelled) cancelled")
        #expect(stopped, "\(fetches) origin fetches, \(cancelled) cancelled")
        #expect(fetches <= Self.connections * 16, "\(fetches) origin fetches")
        // Each abandoned request is logged as nginx logs it.
        _ = try stack.proxy.process.waitForLine(containing: "status=499", timeout: .seconds(10))
    }

    /// A client that half-closes with a miss outstanding has left (nginx's rule): its fetch
    /// stops, and it reads no answer at all, never a 500 for the request nobody answered.
    @Test func aHalfClosedClientsCancelledMissGetsNoAnswer() throws {
        let stack = try HTTP2Stack()
        try stack.origin.setFaults(#"{"delayMs": 1500}"#)
        let client = try KeepAliveClient(port: stack.port, timeout: .seconds(10))
        let target = HTTP2RapidResetTests.launchPath(id: "half-closed")
        try client.write(Array("GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8))
        client.closeWrite()
        let answer = try client.readResponse(timeout: .seconds(10))
        #expect(answer == nil, "\(String(describing: answer))")
        let upstream = try stack.proxy.stats()["upstream"] as? [String: Any]
        #expect(upstream?["cancelled"] as? Int == 1, "\(String(describing: upstream))")
    }
}
