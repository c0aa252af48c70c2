// The rapid-reset rule (CVE-2023-44487) on a manual clock: reset streams whose work runs hold
// their place under the stream limit, and premature resets past a share end the connection.

import BreakwaterHTTP2
import Testing

@Suite struct HTTP2ResetGuardTests {
    static let second: Int64 = 1_000_000_000

    /// Resets within a second are premature; half of ten streams or more ends the connection.
    static func judgedFromTheTenthStream() -> HTTP2ResetGuard {
        HTTP2ResetGuard(maxStreams: 100, prematureWithin: second, minimumStreams: 10, maximumSharePercent: 50)
    }

    @Test func resetStreamsWhoseFetchesRunFillTheLimitUntilTheirWorkEnds() {
        var guardian = HTTP2ResetGuard(maxStreams: 4)
        for _ in 0..<4 {
            #expect(guardian.streamOpened(open: 0) == .accept)
            #expect(guardian.resetBeforeAnswer(openedAt: 0, now: 0, isDetached: true) == .allow)
        }
        // No stream is open, but four fetches run for reset ones.
        #expect(guardian.streamOpened(open: 0) == .refuse)
        guardian.detachedWorkEnded()
        #expect(guardian.streamOpened(open: 0) == .accept)
        #expect(guardian.streamOpened(open: 3) == .refuse)
    }

    @Test func openStreamsAloneFillTheLimit() {
        var guardian = HTTP2ResetGuard(maxStreams: 2)
        #expect(guardian.streamOpened(open: 0) == .accept)
        #expect(guardian.streamOpened(open: 1) == .accept)
        #expect(guardian.streamOpened(open: 2) == .refuse)
    }

    @Test func prematureResetsPastTheShareEndTheConnectionOnceEnoughStreamsOpened() {
        var guardian = Self.judgedFromTheTenthStream()
        var verdicts: [HTTP2ResetGuard.Verdict] = []
        for stream in 0..<10 {
            _ = guardian.streamOpened(open: 0)
            let opened = Int64(stream)
            verdicts.append(guardian.resetBeforeAnswer(openedAt: opened, now: opened + 1, isDetached: false))
        }
        // Judged from the tenth stream on.
        #expect(verdicts.dropLast().allSatisfy { $0 == .allow })
        #expect(verdicts.last == .enhanceYourCalm)
    }

    @Test func resetsAfterTheStreamsLivedAWhileAreNotPremature() {
        var guardian = Self.judgedFromTheTenthStream()
        for stream in 0..<50 {
            _ = guardian.streamOpened(open: 0)
            let opened = Int64(stream) * 2 * Self.second
            let verdict = guardian.resetBeforeAnswer(openedAt: opened, now: opened + 2 * Self.second, isDetached: false)
            #expect(verdict == .allow)
        }
        #expect(guardian.prematureResets == 0)
    }

    @Test func aClientThatCancelsSomeOfManyAnsweredStreamsIsNeverStopped() {
        var guardian = Self.judgedFromTheTenthStream()
        for stream in 0..<1_000 {
            _ = guardian.streamOpened(open: 0)
            // One stream in three is reset at once; the others are answered.
            guard stream % 3 == 0 else { continue }
            #expect(guardian.resetBeforeAnswer(openedAt: 0, now: 0, isDetached: true) == .allow)
            guardian.detachedWorkEnded()
        }
        #expect(guardian.detached == 0)
    }
}
