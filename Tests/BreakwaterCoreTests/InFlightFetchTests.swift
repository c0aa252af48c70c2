// The coalescing state machine of one key, event by event, on a manual clock, without sockets.

import BreakwaterCore
import Testing

struct InFlightFetchTests {
    enum Event: Sendable, CustomStringConvertible {
        case join(Int)
        case refresh
        /// The fetch under way ends with an answer everyone may have.
        case completeShared
        /// ... with one only its fetcher may have; `remember`: it says so of the key.
        case completePrivate(remember: Bool)
        /// A lone fetch ends with an answer of this sharing.
        case alone(AnswerSharing)
        /// The clock moves on.
        case wait(seconds: Int)

        var description: String {
            switch self {
            case .join(let waiter): "join(\(waiter))"
            case .refresh: "refresh"
            case .completeShared: "complete(shared)"
            case .completePrivate(let remember): "complete(fetcherOnly\(remember ? ", remember" : ""))"
            case .alone(let sharing): "alone(\(sharing))"
            case .wait(let seconds): "wait(\(seconds)s)"
            }
        }
    }

    enum Outcome: Sendable, Equatable {
        case startFetch, wait, fetchAlone, startRefresh, alreadyFetching
        case delivered([Int], refetching: [Int] = [])
        case none
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        var events: [Event]
        var outcomes: [Outcome]
        var testDescription: String { events.map(\.description).joined(separator: ", ") }
    }

    static let pass = Int(InFlightFetch<Int>.passDuration.components.seconds)

    static let transitions: [Transition] = [
        Transition(events: [.join(1)], outcomes: [.startFetch]),
        Transition(
            events: [.join(1), .join(2), .join(3), .completeShared],
            outcomes: [.startFetch, .wait, .wait, .delivered([1, 2, 3])]),
        Transition(
            events: [.join(1), .completeShared, .join(2), .completeShared],
            outcomes: [.startFetch, .delivered([1]), .startFetch, .delivered([2])]),
        Transition(events: [.join(1), .refresh], outcomes: [.startFetch, .alreadyFetching]),
        Transition(
            events: [.refresh, .join(1), .join(2), .completeShared],
            outcomes: [.startRefresh, .wait, .wait, .delivered([1, 2])]),
        Transition(
            events: [.refresh, .refresh, .completeShared], outcomes: [.startRefresh, .alreadyFetching, .delivered([])]),
        Transition(
            events: [.refresh, .completeShared, .refresh, .join(1)],
            outcomes: [.startRefresh, .delivered([]), .startRefresh, .wait]),
        Transition(events: [.completeShared], outcomes: [.delivered([])]),
        Transition(
            events: [.join(1), .completeShared, .completeShared],
            outcomes: [.startFetch, .delivered([1]), .delivered([])]),
        // An answer only its fetcher may have: the leader gets it, the others fetch alone.
        Transition(
            events: [.join(1), .join(2), .join(3), .completePrivate(remember: false), .join(4)],
            outcomes: [.startFetch, .wait, .wait, .delivered([1], refetching: [2, 3]), .startFetch]),
        // A refresh has no leader: every waiter fetches alone.
        Transition(
            events: [.refresh, .join(1), .join(2), .completePrivate(remember: false)],
            outcomes: [.startRefresh, .wait, .wait, .delivered([], refetching: [1, 2])]),
        // Remembered: later misses fetch alone until the pass runs out, then coalesce again.
        Transition(
            events: [
                .join(1), .join(2), .completePrivate(remember: true), .join(3), .wait(seconds: pass - 1), .join(4),
                .wait(seconds: 1), .join(5), .join(6),
            ],
            outcomes: [
                .startFetch, .wait, .delivered([1], refetching: [2]), .fetchAlone, .none, .fetchAlone, .none,
                .startFetch, .wait,
            ]),
        // A lone fetch whose answer may be shared ends the pass at once.
        Transition(
            events: [.join(1), .completePrivate(remember: true), .join(2), .alone(.shared), .join(3), .join(4)],
            outcomes: [.startFetch, .delivered([1]), .fetchAlone, .none, .startFetch, .wait]),
        // One that says the key is private renews it; one that says nothing leaves it.
        Transition(
            events: [
                .join(1), .completePrivate(remember: true), .wait(seconds: pass - 1),
                .alone(.fetcherOnly(remember: true)), .wait(seconds: pass - 1), .join(2),
                .alone(.fetcherOnly(remember: false)), .wait(seconds: 1), .join(3),
            ],
            outcomes: [.startFetch, .delivered([1]), .none, .none, .none, .fetchAlone, .none, .none, .startFetch]),
        // A lone fetch that ends while a coalesced one runs changes nothing: that one decides.
        Transition(
            events: [.join(1), .alone(.fetcherOnly(remember: true)), .join(2), .completeShared],
            outcomes: [.startFetch, .none, .wait, .delivered([1, 2])]),
        // A stale entry refreshes even while the key passes.
        Transition(
            events: [.join(1), .completePrivate(remember: true), .refresh, .join(2), .completeShared],
            outcomes: [.startFetch, .delivered([1]), .startRefresh, .wait, .delivered([2])]),
    ]

    @Test(arguments: transitions)
    func followsTheTransitionTable(_ transition: Transition) {
        var fetch = InFlightFetch<Int>()
        var now = ContinuousClock.now
        let outcomes = transition.events.map { event -> Outcome in
            switch event {
            case .join(let waiter):
                switch fetch.join(waiter, now: now) {
                case .startFetch: return .startFetch
                case .wait: return .wait
                case .fetchAlone: return .fetchAlone
                }
            case .refresh:
                return fetch.beginRefresh() == .startRefresh ? .startRefresh : .alreadyFetching
            case .completeShared:
                let completion = fetch.complete(.shared, now: now)
                return .delivered(completion.answered, refetching: completion.refetching)
            case .completePrivate(let remember):
                let completion = fetch.complete(.fetcherOnly(remember: remember), now: now)
                return .delivered(completion.answered, refetching: completion.refetching)
            case .alone(let sharing):
                fetch.answeredAlone(sharing, now: now)
                return .none
            case .wait(let seconds):
                now += .seconds(seconds)
                return .none
            }
        }
        #expect(outcomes == transition.outcomes)
    }

    @Test func reportsItsState() {
        var fetch = InFlightFetch<Int>()
        let now = ContinuousClock.now
        #expect(fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 0)
        _ = fetch.beginRefresh()
        #expect(!fetch.isIdle && fetch.isRefreshing && fetch.waiterCount == 0)
        _ = fetch.join(7, now: now)
        #expect(fetch.isRefreshing && fetch.waiterCount == 1)
        _ = fetch.complete(.shared, now: now)
        #expect(fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 0 && fetch.isSpent(at: now))
        _ = fetch.join(8, now: now)
        #expect(!fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 1 && !fetch.isSpent(at: now))
        _ = fetch.complete(.fetcherOnly(remember: true), now: now)
        #expect(fetch.isIdle && fetch.isPassing(at: now) && !fetch.isSpent(at: now))
        #expect(fetch.isSpent(at: now + InFlightFetch<Int>.passDuration))
    }

    // MARK: Leaving (a reset stream, a closed connection)

    @Test func theLastWaiterOfAMissLeavingCancelsTheFetchThroughItsLeader() {
        var fetch = InFlightFetch<Int>()
        let now = ContinuousClock.now
        #expect(fetch.join(1, now: now) == .startFetch)
        guard case .cancelFetch(let leader) = fetch.leave(where: { $0 == 1 }) else {
            Issue.record("the only waiter left and the fetch went on")
            return
        }
        #expect(leader == 1)
        #expect(fetch.isIdle)
        // A later miss leads a new fetch; the cancelled one completes nobody.
        #expect(fetch.join(2, now: now) == .startFetch)
    }

    @Test func aCoalescedFetchOthersWaitOnGoesOnWhenItsLeaderLeaves() {
        var fetch = InFlightFetch<Int>()
        let now = ContinuousClock.now
        #expect(fetch.join(1, now: now) == .startFetch)
        #expect(fetch.join(2, now: now) == .wait)
        #expect(fetch.join(3, now: now) == .wait)
        guard case .stillAwaited = fetch.leave(where: { $0 == 1 }) else {
            Issue.record("cancelled")
            return
        }
        guard case .stillAwaited = fetch.leave(where: { $0 == 3 }) else {
            Issue.record("cancelled")
            return
        }
        guard case .notWaiting = fetch.leave(where: { $0 == 3 }) else {
            Issue.record("left twice")
            return
        }
        #expect(fetch.complete(.shared, now: now).answered == [2])
        guard case .notWaiting = fetch.leave(where: { $0 == 2 }) else {
            Issue.record("left after its answer")
            return
        }
    }

    @Test func everyWaiterLeavingCancelsThroughTheLeaderThatStartedIt() {
        var fetch = InFlightFetch<Int>()
        let now = ContinuousClock.now
        _ = fetch.join(1, now: now)
        _ = fetch.join(2, now: now)
        _ = fetch.leave(where: { $0 == 1 })
        guard case .cancelFetch(let leader) = fetch.leave(where: { $0 == 2 }) else {
            Issue.record("went on")
            return
        }
        #expect(leader == 1)
    }

    @Test func aRefreshGoesOnWhenItsWaitersLeave() {
        var fetch = InFlightFetch<Int>()
        let now = ContinuousClock.now
        #expect(fetch.beginRefresh() == .startRefresh)
        #expect(fetch.join(1, now: now) == .wait)
        guard case .stillAwaited = fetch.leave(where: { $0 == 1 }) else {
            Issue.record("refresh cancelled")
            return
        }
        #expect(fetch.isRefreshing)
    }

    @Test func theTableForgetsACancelledKey() {
        let table = InFlightTable<String, Int>()
        let now = ContinuousClock.now
        #expect(table.join("a", waiter: 1, now: now) == .startFetch)
        guard case .cancelFetch = table.leave("a", where: { $0 == 1 }) else {
            Issue.record("went on")
            return
        }
        #expect(table.count == 0)
        #expect(table.cancelled == 1)
        #expect(table.join("a", waiter: 2, now: now) == .startFetch)
    }

    @Test func onlyTheLastDepartureCountsAsACancelledFetch() {
        let table = InFlightTable<String, Int>()
        let now = ContinuousClock.now
        #expect(table.join("a", waiter: 1, now: now) == .startFetch)
        #expect(table.join("a", waiter: 2, now: now) == .wait)
        _ = table.leave("a", where: { $0 == 1 })
        #expect(table.cancelled == 0)
        _ = table.leave("a", where: { $0 == 2 })
        #expect(table.cancelled == 1)
        _ = table.leave("a", where: { $0 == 2 })
        #expect(table.cancelled == 1)
    }
}
