// LeaseTerm and LeaseValue: a fleet-wide fetch lease lives about one fetch's time, is renewed a
// third of a term apart, its release is retried only while it may live, and no waiter outlasts
// the holder's fetch (docs/FLEET.md, "Leases").

import BreakwaterCore
import Testing

struct LeaseTermTests {
    private let rules = LeaseTerm(redisTimeout: .milliseconds(50), originTimeout: .seconds(10))

    @Test func beforeAnyFetchTheTermIsASecondNotTheOriginTimeout() {
        #expect(rules.term == .seconds(1))
        #expect(rules.renewalInterval == .seconds(1) / 3)
    }

    @Test func theTermIsTwiceTheSlowestRecentFetchWithinItsBounds() {
        var term = rules
        term.recordFetch(.milliseconds(200))
        term.recordFetch(.milliseconds(400))
        term.recordFetch(.milliseconds(100))
        #expect(term.term == .milliseconds(800))
        // Fast fetches: never below the floor a renewal needs to land in time.
        var fast = rules
        fast.recordFetch(.milliseconds(5))
        #expect(fast.term == .milliseconds(250))
        // Slow ones: never beyond origin.timeout.
        var slow = rules
        slow.recordFetch(.seconds(9))
        #expect(slow.term == .seconds(10))
    }

    @Test func onlyTheRecentFetchesCount() {
        var term = rules
        term.recordFetch(.seconds(3))
        for _ in 0..<LeaseTerm.memory { term.recordFetch(.milliseconds(300)) }
        #expect(term.term == .milliseconds(600))
    }

    @Test func theFloorLetsARenewalThatTakesTheWholeRedisTimeoutLand() {
        let slowRedis = LeaseTerm(redisTimeout: .milliseconds(500), originTimeout: .seconds(10))
        var term = slowRedis
        term.recordFetch(.milliseconds(10))
        #expect(term.renewalInterval + .milliseconds(500) < term.term)
        #expect(LeaseTerm(redisTimeout: .seconds(5), originTimeout: .seconds(2)).term == .seconds(2))
    }

    @Test func aReleaseIsRetriedOnlyWhileTheLeaseMayStillLive() {
        #expect(rules.retriesRelease(sinceConfirmed: .milliseconds(900)))
        #expect(!rules.retriesRelease(sinceConfirmed: .seconds(1)))
    }

    @Test func aWaiterWaitsNoLongerThanTheHoldersFetch() {
        #expect(rules.waitLimit(holderDeadlineIn: .seconds(3)) == .seconds(3))
        #expect(rules.waitLimit(holderDeadlineIn: .seconds(-1)) == .zero)
        #expect(rules.waitLimit(holderDeadlineIn: .seconds(60)) == .seconds(10))
        #expect(rules.waitLimit(holderDeadlineIn: nil) == .seconds(10))
    }

    @Test func aLeaseValueCarriesItsHolderAndDeadline() {
        let value = LeaseValue(holder: "0b1e-proxy:1:42", deadlineMilliseconds: 1_700_000_000_123)
        #expect(value.encoded == "0b1e-proxy:1:42 1700000000123")
        #expect(LeaseValue(Array(value.encoded.utf8)) == value)
        // An older proxy's lease holds its bare id: held, without a deadline.
        #expect(LeaseValue(Array("0b1e-proxy".utf8)) == nil)
    }
}
