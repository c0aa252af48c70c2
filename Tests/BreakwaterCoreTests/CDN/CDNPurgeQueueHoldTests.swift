// CDNPurgeQueue on a manual clock: a failed purge is retried past `cdn.retries` for as long as a
// cache in front may still hold what it purges, and no longer; what rejoins a round keeps that
// bound and its backoff.

import BreakwaterCore
import Testing

struct CDNPurgeQueueHoldTests {
    typealias Fixture = CDNPurgeQueueTests

    static func held(_ tags: String..., for duration: Duration) -> CDNPurge {
        var purge = CDNPurge.tags(tags, soft: false, origin: .mutation)
        purge.mayBeHeldFor = duration
        return purge
    }

    /// Fails every attempt until `until` (milliseconds), then answers 200; returns the attempts made
    /// and whether the purge was taken.
    static func run(_ queue: inout CDNPurgeQueue, downUntil until: Int, from start: Int = 0) -> (attempts: Int, taken: Bool) {
        var now = start
        var attempts = 0
        while let deadline = queue.nextDeadline, attempts < 1_000 {
            now = max(now, Int((deadline - Fixture.start) / .milliseconds(1)))
            for call in Fixture.sent(queue.tick(now: Fixture.at(now))) {
                attempts += 1
                let outcome: CDNCallOutcome = now < until ? .failed("connection refused") : .answered(status: 200)
                _ = queue.finished(call.id, outcome, now: Fixture.at(now + 1))
            }
            now += 1
        }
        return (attempts, queue.statistics.sent > 0)
    }

    @Test func aPurgeIsRetriedPastItsRetriesWhileTheCacheInFrontMayHoldTheAnswer() {
        var queue = Fixture.queue(retries: 3)
        _ = queue.enqueue(Self.held("Launch:1", for: .seconds(60)), now: Fixture.at(0))
        // Down for 5 s: 3 retries (about 0.7 s) would have given up; the answer may be held 60 s.
        let result = Self.run(&queue, downUntil: 5_000)
        #expect(result.taken)
        #expect(result.attempts > 4)
        #expect(queue.statistics.failed == 0)
        #expect(queue.isSettled)
    }

    @Test func itIsGivenUpOnceTheCacheInFrontCanHoldNothingItPurges() {
        var queue = Fixture.queue(retries: 3)
        _ = queue.enqueue(Self.held("Launch:1", for: .seconds(3)), now: Fixture.at(0))
        let result = Self.run(&queue, downUntil: 1_000_000)
        #expect(!result.taken)
        #expect(queue.statistics.failed == 1)
        // Attempts stop within one backoff (the cap, 1 s) of the 3 s the answer may be held.
        #expect(queue.nextDeadline == nil)
        #expect(result.attempts >= 6 && result.attempts <= 8, "\(result.attempts) attempts")
    }

    @Test func withoutAHoldTheRetriesAreTheBound() {
        var queue = Fixture.queue(retries: 3)
        _ = queue.enqueue(Self.held("Launch:1", for: .zero), now: Fixture.at(0))
        let result = Self.run(&queue, downUntil: 1_000_000)
        #expect(result.attempts == 4)
        #expect(queue.statistics.failed == 1)
    }

    @Test func aRefusalIsNotRetriedWhateverTheHold() throws {
        var queue = Fixture.queue(retries: 3)
        _ = queue.enqueue(Self.held("Launch:1", for: .seconds(60)), now: Fixture.at(0))
        let call = try #require(Fixture.sent(queue.tick(now: Fixture.at(50))).first)
        let actions = queue.finished(call.id, .answered(status: 403), now: Fixture.at(60))
        #expect(actions.contains { if case .gaveUp = $0 { true } else { false } })
        #expect(queue.nextDeadline == nil)
    }

    @Test func mergedPurgesKeepTheLongestHold() throws {
        var queue = Fixture.queue(retries: 0)
        _ = queue.enqueue(Self.held("Launch:1", for: .seconds(2)), now: Fixture.at(0))
        _ = queue.enqueue(Self.held("Launch:2", for: .seconds(30)), now: Fixture.at(10))
        let call = try #require(Fixture.sent(queue.tick(now: Fixture.at(50))).first)
        #expect(call.keepTryingUntil == Fixture.at(30_010))
    }

    @Test func callsRejoiningARoundPastTheBoundKeepTheirHoldAndBackoff() throws {
        var queue = Fixture.queue(retries: 0, maxQueue: 2)
        _ = queue.enqueue(Self.held("Launch:1", for: .seconds(60)), now: Fixture.at(0))
        var call = try #require(Fixture.sent(queue.tick(now: Fixture.at(50))).first)
        // Three failures: the next wait is 400 ms.
        for attempt in 1...3 {
            _ = queue.finished(call.id, .failed("connection refused"), now: Fixture.at(100 * attempt))
            let due = try #require(queue.nextDeadline)
            call = try #require(Fixture.sent(queue.tick(now: due)).first)
        }
        #expect(call.attempt == 4)
        _ = queue.finished(call.id, .failed("connection refused"), now: Fixture.at(2_000))
        // Past max_queue: the waiting call rejoins the next round with the new purges.
        let overflowed = queue.enqueue(Self.held("Launch:2", "Launch:3", for: .seconds(1)), now: Fixture.at(2_010))
        #expect(overflowed.contains { if case .overflowed = $0 { true } else { false } })
        let due = try #require(queue.nextDeadline)
        let next = try #require(Fixture.sent(queue.tick(now: due)).first)
        #expect(next.attempt == 5, "its backoff goes on")
        #expect(next.keepTryingUntil == Fixture.at(60_000), "and its hold")
    }
}
