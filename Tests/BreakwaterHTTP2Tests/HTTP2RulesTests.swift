// The HTTP/2 rules on a manual clock: the flood bucket, the per-stream deadlines, the head
// limits and the preface choice.

import BreakwaterHTTP2
import Testing

@Suite struct HTTP2FloodGuardTests {
    @Test func aBurstWithinTheBucketIsAllowedAndTheNextFrameIsNot() {
        var guardian = HTTP2FloodGuard(burst: 5, perSecond: 10, now: 0)
        for _ in 0..<5 { #expect(guardian.received(.ping, now: 0) == .allow) }
        #expect(guardian.received(.settings, now: 0) == .enhanceYourCalm)
    }

    @Test func tokensComeBackAtTheRateButNeverAboveTheBurst() {
        var guardian = HTTP2FloodGuard(burst: 3, perSecond: 10, now: 0)
        for _ in 0..<3 { _ = guardian.received(.priority, now: 0) }
        // 100 ms regains one frame.
        #expect(guardian.received(.emptyData, now: 100_000_000) == .allow)
        #expect(guardian.received(.emptyData, now: 100_000_000) == .enhanceYourCalm)
        // An hour later: the burst again, not 36,000 frames.
        let later: Int64 = 3_600_000_000_000
        for _ in 0..<3 { #expect(guardian.received(.ping, now: later) == .allow) }
        #expect(guardian.received(.ping, now: later) == .enhanceYourCalm)
    }

    @Test func resetsCountLikeTheOtherFramesThatBringNoRequest() {
        var guardian = HTTP2FloodGuard(burst: 4, perSecond: 1, now: 0)
        for frame: HTTP2FloodGuard.Frame in [.reset, .reset, .ping, .reset] { #expect(guardian.received(frame, now: 0) == .allow) }
        #expect(guardian.received(.reset, now: 0) == .enhanceYourCalm)
    }

    @Test func aSteadyClientBelowTheRateIsNeverStopped() {
        var guardian = HTTP2FloodGuard(burst: 10, perSecond: 100, now: 0)
        for tick in 0..<10_000 {
            #expect(guardian.received(.ping, now: Int64(tick) * 20_000_000) == .allow)
        }
    }
}

@Suite struct HTTP2StreamDeadlinesTests {
    let seconds: Int64 = 1_000_000_000
    var configuration: HTTP2StreamDeadlines.Configuration {
        .init(idleTimeout: 60 * seconds, headerTimeout: 10 * seconds, bodyTimeout: 30 * seconds)
    }

    @Test func anIdleConnectionClosesAfterTheIdleTimeout() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        #expect(deadlines.nextDeadline() == 60 * seconds)
        #expect(deadlines.expired(now: 59 * seconds).isEmpty)
        #expect(deadlines.expired(now: 60 * seconds) == [.closeIdle])
    }

    @Test func anOpenStreamKeepsTheConnectionAndItsCloseRestartsTheIdleClock() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        deadlines.opened(1, now: 1 * seconds)
        deadlines.headComplete(1, expectsBody: false, now: 1 * seconds)
        #expect(deadlines.nextDeadline() == nil)
        #expect(deadlines.expired(now: 500 * seconds).isEmpty)
        deadlines.closed(1, now: 500 * seconds)
        #expect(deadlines.nextDeadline() == 560 * seconds)
    }

    @Test func aHeadThatNeverCompletesIsResetAfterTheHeaderTimeout() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        deadlines.opened(3, now: 2 * seconds)
        #expect(deadlines.nextDeadline() == 12 * seconds)
        #expect(deadlines.expired(now: 11 * seconds).isEmpty)
        #expect(deadlines.expired(now: 12 * seconds) == [.resetStream(3)])
        // Reported once.
        #expect(deadlines.expired(now: 13 * seconds).isEmpty)
    }

    @Test func aSlowBodyIsAnswered408AfterTheBodyTimeout() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        deadlines.opened(5, now: 0)
        deadlines.headComplete(5, expectsBody: true, now: 1 * seconds)
        #expect(deadlines.nextDeadline() == 31 * seconds)
        #expect(deadlines.expired(now: 31 * seconds) == [.requestTimeout(5)])
    }

    @Test func aWindowHeldShutResetsTheStreamAndTraffickingBytesClearsIt() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        deadlines.opened(7, now: 0)
        deadlines.headComplete(7, expectsBody: false, now: 0)
        deadlines.windowShut(7, now: 5 * seconds)
        deadlines.windowShut(7, now: 20 * seconds)  // still the first time
        #expect(deadlines.nextDeadline() == 35 * seconds)
        deadlines.windowOpened(7)
        #expect(deadlines.nextDeadline() == nil)
        deadlines.windowShut(7, now: 40 * seconds)
        #expect(deadlines.expired(now: 70 * seconds) == [.resetStream(7)])
    }

    @Test func theRestOfARefusedBodyIsDroppedForAtMostTheBodyTimeout() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        deadlines.opened(11, now: 0)
        deadlines.headComplete(11, expectsBody: true, now: 0)
        deadlines.discarding(11, now: 4 * seconds)
        #expect(deadlines.nextDeadline() == 34 * seconds)
        #expect(deadlines.expired(now: 33 * seconds).isEmpty)
        #expect(deadlines.expired(now: 34 * seconds) == [.stopDiscarding(11)])
    }

    @Test func onlyTheExpiredStreamsAreNamedInStreamOrder() {
        var deadlines = HTTP2StreamDeadlines(configuration: configuration, now: 0)
        for stream: Int32 in [9, 1, 5] { deadlines.opened(stream, now: 0) }
        deadlines.headComplete(5, expectsBody: false, now: 0)
        #expect(deadlines.expired(now: 10 * seconds) == [.resetStream(1), .resetStream(9)])
        #expect(deadlines.openStreams == 3)
    }
}

@Suite struct HTTP2HeadLimitsTests {
    let limits = HTTP2HeadLimits(maxTargetBytes: 100, maxHeadBytes: 1000, maxBodyBytes: 5000)

    @Test func eachLimitGivesItsRefusalInHTTP1Order() {
        #expect(limits.check(targetBytes: 100, headBytes: 1000, declaredBodyBytes: 5000) == nil)
        #expect(limits.check(targetBytes: 101, headBytes: 2000, declaredBodyBytes: nil) == .targetTooLong(length: 101, limit: 100))
        #expect(limits.check(targetBytes: 10, headBytes: 1001, declaredBodyBytes: 9000) == .headTooLarge(length: 1001, limit: 1000))
        #expect(limits.check(targetBytes: 10, headBytes: 10, declaredBodyBytes: 5001) == .bodyTooLarge(length: 5001, limit: 5000))
        #expect(limits.check(bodyBytes: 5001) == .bodyTooLarge(length: 5001, limit: 5000))
        #expect(limits.check(bodyBytes: 5000) == nil)
    }

    @Test func aFieldCountsAsItsHTTP1Line() {
        #expect(HTTP2HeadLimits.fieldBytes(nameCount: 4, valueCount: 9) == "host: localhost\r\n".utf8.count)
    }
}

@Suite struct HTTP2RefusedBodyTests {
    @Test func bytesAreDroppedUpToTheLimitAndNotOneMore() {
        var body = HTTP2RefusedBody()
        let first = body.dropped(HTTP2RefusedBody.discardLimit - 1)
        let last = body.dropped(1)
        #expect(first && last)
        #expect(body.isWithinBound)
        let past = body.dropped(1)
        #expect(!past)
        #expect(!body.isWithinBound)
        #expect(body.discarded == HTTP2RefusedBody.discardLimit + 1)
    }
}

@Suite struct HTTP2PrefaceTests {
    func choose(_ text: String) -> HTTP2Preface.Choice {
        Array(text.utf8).withUnsafeBufferPointer { HTTP2Preface.choose($0) }
    }

    @Test func thePrefaceChoosesHTTP2AndAnythingElseHTTP1() {
        #expect(choose("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .http2)
        #expect(choose("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\u{12}\u{4}") == .http2)
        #expect(choose("PRI * HTTP/2") == .needMore)
        #expect(choose("") == .needMore)
        #expect(choose("GET / HTTP/1.1\r\n") == .http1)
        #expect(choose("PRI * HTTP/1.1\r\n") == .http1)
    }
}
