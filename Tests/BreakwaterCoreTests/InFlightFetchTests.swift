// The coalescing state machine of one key, event by event, without sockets.

import BreakwaterCore
import Testing

struct InFlightFetchTests {
    enum Event: Sendable, CustomStringConvertible {
        case join(Int)
        case refresh, complete
        var description: String {
            switch self {
            case .join(let waiter): "join(\(waiter))"
            case .refresh: "refresh"
            case .complete: "complete"
            }
        }
    }

    enum Outcome: Sendable, Equatable {
        case startFetch, wait, startRefresh, alreadyFetching
        case delivered([Int])
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        var events: [Event]
        var outcomes: [Outcome]
        var testDescription: String { events.map(\.description).joined(separator: ", ") }
    }

    static let transitions: [Transition] = [
        Transition(events: [.join(1)], outcomes: [.startFetch]),
        Transition(
            events: [.join(1), .join(2), .join(3), .complete],
            outcomes: [.startFetch, .wait, .wait, .delivered([1, 2, 3])]),
        Transition(
            events: [.join(1), .complete, .join(2), .complete],
            outcomes: [.startFetch, .delivered([1]), .startFetch, .delivered([2])]),
        Transition(events: [.join(1), .refresh], outcomes: [.startFetch, .alreadyFetching]),
        Transition(
            events: [.refresh, .join(1), .join(2), .complete],
            outcomes: [.startRefresh, .wait, .wait, .delivered([1, 2])]),
        Transition(
            events: [.refresh, .refresh, .complete], outcomes: [.startRefresh, .alreadyFetching, .delivered([])]),
        Transition(
            events: [.refresh, .complete, .refresh, .join(1)],
            outcomes: [.startRefresh, .delivered([]), .startRefresh, .wait]),
        Transition(events: [.complete], outcomes: [.delivered([])]),
        Transition(
            events: [.join(1), .complete, .complete], outcomes: [.startFetch, .delivered([1]), .delivered([])]),
    ]

    @Test(arguments: transitions)
    func followsTheTransitionTable(_ transition: Transition) {
        var fetch = InFlightFetch<Int>()
        let outcomes = transition.events.map { event -> Outcome in
            switch event {
            case .join(let waiter):
                fetch.join(waiter) == .startFetch ? .startFetch : .wait
            case .refresh:
                fetch.beginRefresh() == .startRefresh ? .startRefresh : .alreadyFetching
            case .complete:
                .delivered(fetch.complete())
            }
        }
        #expect(outcomes == transition.outcomes)
    }

    @Test func reportsItsState() {
        var fetch = InFlightFetch<Int>()
        #expect(fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 0)
        _ = fetch.beginRefresh()
        #expect(!fetch.isIdle && fetch.isRefreshing && fetch.waiterCount == 0)
        _ = fetch.join(7)
        #expect(fetch.isRefreshing && fetch.waiterCount == 1)
        _ = fetch.complete()
        #expect(fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 0)
        _ = fetch.join(8)
        #expect(!fetch.isIdle && !fetch.isRefreshing && fetch.waiterCount == 1)
    }
}
