// CDNPurgeQueue on a manual clock: batching per window, one round in flight, merging, the
// overflow rule, retries with backoff, and what is given up.

import BreakwaterCore
import Testing

struct CDNPurgeQueueTests {
    static let varnish = CDNTarget.varnish(urls: [OriginURL(parsing: "http://127.0.0.1:6081/")!])
    static let start = ContinuousClock.now

    static func queue(
        window: Duration = .milliseconds(50), retries: Int = 3, maxQueue: Int = 100, target: CDNTarget = varnish
    ) -> CDNPurgeQueue {
        CDNPurgeQueue(
            target: target,
            settings: .init(
                batchWindow: window, retries: retries, maxQueue: maxQueue,
                backoff: CDNRetrySchedule(first: .milliseconds(100), cap: .seconds(1))))
    }

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static func sent(_ actions: [CDNQueueAction]) -> [CDNCall] {
        actions.compactMap { if case .send(let call) = $0 { call } else { nil } }
    }

    static func tags(_ tags: String..., soft: Bool = false) -> CDNPurge { .tags(tags, soft: soft) }

    @Test func purgesWithinTheWindowGoOutAsOneCall() throws {
        var queue = Self.queue()
        #expect(Self.sent(queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))).isEmpty)
        #expect(queue.nextDeadline == Self.at(50))
        #expect(Self.sent(queue.enqueue(Self.tags("Launch:2"), now: Self.at(20))).isEmpty)
        #expect(Self.sent(queue.enqueue(Self.tags("Launch:1"), now: Self.at(30))).isEmpty)
        #expect(Self.sent(queue.tick(now: Self.at(49))).isEmpty, "the window is still open")
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        try #require(calls.count == 1)
        #expect(calls[0].request.method == "PURGE")
        #expect(calls[0].request.headers["xkey-purge"] == "Launch:1 Launch:2", "each tag once, in arrival order")
        #expect(queue.statistics.purges == 3)
        #expect(queue.statistics.queued == 0)
    }

    @Test func aZeroWindowSendsAtOnce() {
        var queue = Self.queue(window: .zero)
        #expect(Self.sent(queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))).count == 1)
    }

    @Test func purgesArrivingWhileARoundIsInFlightWaitForItsAnswer() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let first = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.enqueue(Self.tags("Launch:2"), now: Self.at(60))
        _ = queue.enqueue(Self.tags("Launch:3"), now: Self.at(70))
        #expect(queue.nextDeadline == nil, "nothing to wait for but the answer")
        #expect(Self.sent(queue.tick(now: Self.at(200))).isEmpty)
        #expect(queue.statistics.queued == 2)
        let next = Self.sent(queue.finished(first.id, .answered(status: 200), now: Self.at(210)))
        #expect(next.map(\.request.headers["xkey-purge"]) == ["Launch:2 Launch:3"], "the window closed meanwhile")
        #expect(queue.statistics.sent == 1)
    }

    @Test func hardAndSoftTagsGoInSeparateCallsAndHardWins() {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1", soft: true), now: Self.at(0))
        _ = queue.enqueue(Self.tags("Launch:2", soft: true), now: Self.at(1))
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(2))
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        #expect(calls.map(\.request.headers["xkey-purge"]) == ["Launch:1", nil])
        #expect(calls.map(\.request.headers["xkey-softpurge"]) == [nil, "Launch:2"])
    }

    @Test func purgeEverythingCoversTheTagsQueuedWithIt() {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        _ = queue.enqueue(.everything(soft: false), now: Self.at(1))
        _ = queue.enqueue(Self.tags("Launch:2"), now: Self.at(2))
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        #expect(calls.map(\.request.method) == ["BAN"])
    }

    @Test func anAdminOverflowReplacesTheQueueByOnePurgeOfEverything() {
        var queue = Self.queue(maxQueue: 3)
        for id in 1...3 { _ = queue.enqueue(Self.tags("op:Get\(id)"), now: Self.at(id)) }
        #expect(queue.statistics.overflows == 0)
        let actions = queue.enqueue(Self.tags("op:Get4"), now: Self.at(4))
        #expect(actions.contains(.overflowed(dropped: 4, everything: true)))
        #expect(queue.statistics.overflows == 1)
        #expect(queue.statistics.queued == 1)
        _ = queue.enqueue(Self.tags("op:Get5"), now: Self.at(5))
        #expect(Self.sent(queue.tick(now: Self.at(51))).map(\.request.method) == ["BAN"], "the window of the first purge")
    }

    @Test func aFailedCallIsRetriedWithBackoffThenGivenUp() throws {
        var queue = Self.queue(retries: 2)
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        #expect(Self.sent(queue.finished(call.id, .answered(status: 503), now: Self.at(60))).isEmpty)
        #expect(queue.nextDeadline == Self.at(160), "first backoff: 100 ms")
        #expect(queue.statistics.queued == 1)
        #expect(queue.statistics.lastError == "HTTP 503")
        let second = try #require(Self.sent(queue.tick(now: Self.at(160))).first)
        #expect(second.attempt == 2)
        #expect(second.request == call.request)
        _ = queue.finished(second.id, .failed("connection refused"), now: Self.at(170))
        #expect(queue.nextDeadline == Self.at(370), "second backoff: 200 ms")
        let third = try #require(Self.sent(queue.tick(now: Self.at(370))).first)
        let actions = queue.finished(third.id, .answered(status: 502), now: Self.at(380))
        #expect(actions.contains { if case .gaveUp(_, .answered(502)) = $0 { true } else { false } })
        #expect(queue.statistics.failed == 1)
        #expect(queue.statistics.retried == 2)
        #expect(queue.statistics.sent == 0)
        #expect(queue.nextDeadline == nil)
    }

    @Test func aRefusalOtherThan429IsNotRetried() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        let actions = queue.finished(call.id, .answered(status: 403), now: Self.at(60))
        #expect(actions.count == 1)
        #expect(queue.statistics.failed == 1)
        #expect(queue.statistics.retried == 0)
    }

    @Test func rateLimitedCallsAreRetried() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.finished(call.id, .answered(status: 429), now: Self.at(60))
        #expect(queue.statistics.retried == 1)
    }

    @Test func aRetryingCallDoesNotHoldBackTheNextRound() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.finished(call.id, .failed("reset"), now: Self.at(55))
        let next = Self.sent(queue.enqueue(Self.tags("Launch:2"), now: Self.at(60)))
        #expect(next.isEmpty)
        #expect(Self.sent(queue.tick(now: Self.at(110))).map(\.request.headers["xkey-purge"]) == ["Launch:2"])
    }

    @Test func answeredCallsRecordTheirDuration() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.finished(call.id, .answered(status: 200), now: Self.at(62))
        #expect(queue.statistics.latency.count == 1)
        #expect(queue.statistics.latency.percentile(50) >= .milliseconds(11))
        #expect(queue.statistics.latency.percentile(50) <= .milliseconds(13))
    }

    @Test func backoffDoublesUpToItsCap() {
        let schedule = CDNRetrySchedule(first: .milliseconds(100), cap: .milliseconds(350))
        #expect((1...4).map(schedule.delay(after:)) == [.milliseconds(100), .milliseconds(200), .milliseconds(350), .milliseconds(350)])
    }
}

extension CDNPurgeQueueTests {
    @Test func flushSendsWhatWaitsBeforeTheWindowCloses() throws {
        var queue = Self.queue(window: .seconds(30))
        _ = queue.enqueue(Self.tags("Launch:1"), now: Self.at(0))
        #expect(!queue.isSettled)
        let calls = Self.sent(queue.flush(now: Self.at(5)))
        #expect(calls.map(\.request.headers["xkey-purge"]) == ["Launch:1"])
        #expect(!queue.isSettled, "its answer is awaited")
        _ = queue.finished(try #require(calls.first).id, .answered(status: 200), now: Self.at(6))
        #expect(queue.isSettled)
    }
}
