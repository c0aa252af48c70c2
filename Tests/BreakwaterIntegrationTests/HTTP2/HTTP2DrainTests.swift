// SIGTERM with HTTP/2 connections open (docs/reference/client-protocol.md, "HTTP/2": stopping):
// the shutdown notice's GOAWAY (last stream id 2^31-1), after its PING's round trip the GOAWAY
// naming the last stream taken, the open streams answered within the drain, then exit 0.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized, .enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
struct HTTP2DrainTests {
    @Test func sigtermSendsGoawayAndTheStreamStillReceivingItsBodyIsAnswered() throws {
        let stack = try HTTP2Stack()
        let observed = try stack.frames.run(
            "drain", ["--signal-pid", String(stack.pid)],
            options: ["--path", "/graphql", "--probe-path", HTTP2Stack.launchPath, "--timeout", "10"])
        #expect(observed.goawayError == "NO_ERROR", "\(observed)")
        let goaways = observed.json["goaways"] as? [[String: Any]] ?? []
        #expect(goaways.first?["last_stream_id"] as? Int == Int(Int32.max), "the shutdown notice first: \(observed)")
        #expect(observed.goawayLastStreamID == 1, "the open stream is named as taken: \(observed)")
        #expect(observed.string("late_stream_status") == nil, "no stream is taken after the GOAWAY: \(observed)")
        print("HTTP/2 drain: \(observed)")
        // The drain waits for the connection's open stream, whose body comes after the GOAWAY.
        #expect(observed.string("stream_status") == "200", "\(observed)")
        #expect(observed.string("stream_body")?.contains(#""site""#) == true, "\(observed)")
        #expect(stack.proxy.process.waitForExit(timeout: .seconds(15)) == 0)
    }
}
