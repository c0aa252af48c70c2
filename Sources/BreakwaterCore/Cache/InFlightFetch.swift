// The life of one key's upstream fetch (SPEC section 5: coalescing and stale-while-revalidate)
// as a value: events in, actions out, and the I/O layer carries the actions out.

/// Request coalescing for one cache key: at most one upstream fetch, however many clients ask.
///
/// ```
/// idle ──join──────────▶ fetching(waiters: [w], isRefresh: false)   → .startFetch
/// idle ──beginRefresh──▶ fetching(waiters: [],  isRefresh: true)    → .startRefresh
/// fetching ──join──────▶ fetching(waiters + [w])                     → .wait
/// fetching ──beginRefresh──▶ unchanged                               → .alreadyFetching
/// fetching ──complete──▶ idle                                        → every waiter
/// ```
/// The leader is a waiter like any other: it gets `.startFetch`, and its answer comes from
/// `complete()` with everyone else's. Waiters are never removed, so a client that disconnects,
/// the leader included, cannot cancel the fetch; delivering to it is the caller's no-op.
/// The caller must call `complete()` exactly once per started fetch, whatever the outcome
/// (stored, not storable, origin error, timeout): the waiters decide what to send from it.
package struct InFlightFetch<Waiter> {
    /// What the caller does after `join`.
    package enum JoinAction: Sendable, Equatable {
        /// Nobody was fetching: send the upstream request, then call `complete()`.
        case startFetch
        /// A fetch or refresh is under way: the waiter is delivered to when it completes.
        case wait
    }

    /// What the caller does after `beginRefresh`.
    package enum RefreshAction: Sendable, Equatable {
        /// Send the background request, then call `complete()`.
        case startRefresh
        /// A fetch or refresh is under way; its answer will refresh the entry.
        case alreadyFetching
    }

    fileprivate enum State {
        case idle
        /// `isRefresh`: started by stale-while-revalidate rather than by a miss.
        case fetching(waiters: [Waiter], isRefresh: Bool)
    }

    private var state = State.idle

    package init() {}

    /// True when no fetch is under way.
    package var isIdle: Bool {
        if case .idle = state { return true }
        return false
    }

    /// True while a background refresh (and not a miss) runs.
    package var isRefreshing: Bool {
        if case .fetching(_, isRefresh: true) = state { return true }
        return false
    }

    /// Clients waiting for the fetch under way.
    package var waiterCount: Int {
        if case .fetching(let waiters, _) = state { return waiters.count }
        return 0
    }

    /// A client missed the cache: it leads a new fetch or waits for the one under way (a
    /// refresh included, whose answer is as fresh as any).
    package mutating func join(_ waiter: Waiter) -> JoinAction {
        switch state {
        case .idle:
            state = .fetching(waiters: [waiter], isRefresh: false)
            return .startFetch
        case .fetching(var waiters, let isRefresh):
            // Leave .idle in place while appending so `waiters` stays uniquely referenced.
            state = .idle
            waiters.append(waiter)
            state = .fetching(waiters: waiters, isRefresh: isRefresh)
            return .wait
        }
    }

    /// A client was served a stale entry: refresh it in the background unless a fetch runs.
    package mutating func beginRefresh() -> RefreshAction {
        guard case .idle = state else { return .alreadyFetching }
        state = .fetching(waiters: [], isRefresh: true)
        return .startRefresh
    }

    /// The fetch finished, however it went: returns every waiter to answer and goes back to idle.
    /// Completing an idle fetch returns no one.
    package mutating func complete() -> [Waiter] {
        defer { state = .idle }
        guard case .fetching(let waiters, _) = state else { return [] }
        return waiters
    }
}

extension InFlightFetch: Sendable where Waiter: Sendable {}
extension InFlightFetch.State: Sendable where Waiter: Sendable {}
