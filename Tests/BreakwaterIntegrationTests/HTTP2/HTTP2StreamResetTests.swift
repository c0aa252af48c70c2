// A stream the client resets stops only itself (docs/reference/client-protocol.md,
// "HTTP/2"): requests coalesced onto one origin fetch still get the answer when the first of
// them is reset while the fetch runs, and the origin is asked once.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized, .enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
struct HTTP2StreamResetTests {
    @Test func aResetStreamStopsOnlyItselfAndTheCoalescedFetchGoesOn() throws {
        let stack = try HTTP2Stack()
        try stack.origin.setFaults(#"{"delayMs": 800}"#)
        let observed = try stack.frames.run(
            "coalesced-reset", ["--streams", "3", "--reset-after", "0.2"], options: ["--path", HTTP2Stack.launchPath])
        try #require(observed.json["answered_before_reset"] as? Bool == false, "the origin answered too soon: \(observed)")
        let reset = observed.json["reset_stream"] as? [String: Any]
        #expect(reset?["status"] is NSNull || reset?["status"] == nil, "\(observed)")
        let others = observed.json["others"] as? [[String: Any]] ?? []
        #expect(others.count == 2)
        for other in others {
            #expect(other["status"] as? String == "200", "\(observed)")
            #expect((other["body"] as? String)?.contains(#""site""#) == true, "\(observed)")
        }
        #expect(observed.goawayError == nil, "\(observed)")
        let byOperation = try stack.origin.counters()["byOperation"] as? [String: Any]
        #expect(byOperation?["GetLaunch"] as? Int == 1, "one fetch for the three streams: \(String(describing: byOperation))")
        // The fetch was stored: the next request is a hit.
        try stack.origin.setFaults("{}")
        #expect(try stack.frames.get(HTTP2Stack.launchPath).header("x-cache") == "HIT")
    }
}
