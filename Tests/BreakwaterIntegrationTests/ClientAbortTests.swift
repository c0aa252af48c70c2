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

    @Test func pipelinedMissesOfAClosedConnectionAreCancelled() throws {
        let stack = try HTTP2Stack()
        try stack.origin.setFaults(#"{"delayMs": 300}"#)
        let before = try stack.origin.counters()["requests"] as? Int ?? 0
        for connection in 0..<Self.connections {
            let wire = (0..<Self.pipelined).map { index in
                let target = HTTP2RapidResetTests.launchPath(id: "h1-\(connection)-\(index)")
                return "GET \(target) HTTP/1.1\r\nHost: localhost\r\n\r\n"
            }.joined()
            let client = try KeepAliveClient(port: stack.port, timeout: .seconds(10))
            try client.write(Array(wire.utf8))
            client.close()
        }
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
}
