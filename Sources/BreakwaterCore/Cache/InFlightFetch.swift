// The life of one key's upstream fetch (coalescing and stale-while-revalidate, docs/ARCHITECTURE.md)
// as a value: events in, actions out, and the I/O layer carries the actions out.

/// Request coalescing for one cache key: at most one upstream fetch, however many clients ask,
/// and its answer handed to the others only when it may be shared (`AnswerSharing`).
///
/// ```
/// idle ──join──────────▶ fetching(waiters: [w], isRefresh: false)   → .startFetch
/// idle ──beginRefresh──▶ fetching(waiters: [],  isRefresh: true)    → .startRefresh
/// fetching ──join──────▶ fetching(waiters + [w])                     → .wait
/// fetching ──beginRefresh──▶ unchanged                               → .alreadyFetching
/// fetching ──complete(shared)──────▶ idle                            → every waiter answered
/// fetching ──complete(fetcherOnly)─▶ idle or passing(until)          → the leader answered,
///                                                                      the others fetch alone
/// passing ──join (before until)────▶ unchanged                       → .fetchAlone
/// passing ──answeredAlone(shared)──▶ idle
/// ```
/// The leader is a waiter like any other: it gets `.startFetch`, and its answer comes from
/// `complete` with everyone else's. Waiters are never removed, so a client that disconnects,
/// the leader included, cannot cancel the fetch; delivering to it is the caller's no-op.
/// The caller must call `complete` exactly once per started fetch, whatever the outcome
/// (stored, not storable, origin error, timeout). A background refresh has no leader: when its
/// answer may not be shared, every waiter fetches alone.
public struct InFlightFetch<Waiter> {
    /// What the caller does after `join`.
    public enum JoinAction: Sendable, Equatable {
        /// Nobody was fetching: send the upstream request, then call `complete`.
        case startFetch
        /// A fetch or refresh is under way: the waiter is delivered to when it completes.
        case wait
        /// The key's last answer could not be shared (hit-for-miss): fetch for this client alone,
        /// then call `answeredAlone`.
        case fetchAlone
    }

    /// What the caller does after `beginRefresh`.
    public enum RefreshAction: Sendable, Equatable {
        /// Send the background request, then call `complete`.
        case startRefresh
        /// A fetch or refresh is under way; its answer will refresh the entry.
        case alreadyFetching
    }

    /// How long a key whose answer may not be shared is remembered so (Varnish keeps its
    /// hit-for-miss objects 120 s; shorter here, since a stored answer ends it anyway).
    @inlinable public static var passDuration: Duration { .seconds(30) }

    @usableFromInline var phase = InFlightPhase.idle
    /// The clients waiting for the fetch under way; empty in every other phase.
    @usableFromInline var waiters: [Waiter] = []

    @inlinable public init() {}

    /// True when no fetch is under way.
    @inlinable public var isIdle: Bool {
        if case .fetching = phase { return false }
        return true
    }

    /// True while a background refresh (and not a miss) runs.
    @inlinable public var isRefreshing: Bool {
        if case .fetching(isRefresh: true) = phase { return true }
        return false
    }

    /// Clients waiting for the fetch under way.
    @inlinable public var waiterCount: Int { waiters.count }

    /// Whether misses fetch alone at `now` (the key's last answer could not be shared).
    @inlinable public func isPassing(at now: ContinuousClock.Instant) -> Bool {
        if case .passing(let until) = phase { return now < until }
        return false
    }

    /// Whether the value holds nothing worth keeping at `now`: no fetch, no live pass.
    @inlinable public func isSpent(at now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .idle: true
        case .fetching: false
        case .passing(let until): now >= until
        }
    }

    /// A client missed the cache: it leads a new fetch, waits for the one under way (a refresh
    /// included, whose answer is as fresh as any), or fetches alone while the key passes.
    @inlinable public mutating func join(_ waiter: Waiter, now: ContinuousClock.Instant) -> JoinAction {
        switch phase {
        case .passing(let until) where now < until:
            return .fetchAlone
        case .idle, .passing:
            phase = .fetching(isRefresh: false)
            waiters = [waiter]
            return .startFetch
        case .fetching:
            waiters.append(waiter)
            return .wait
        }
    }

    /// A client was served a stale entry: refresh it in the background unless a fetch runs.
    @inlinable public mutating func beginRefresh() -> RefreshAction {
        if case .fetching = phase { return .alreadyFetching }
        phase = .fetching(isRefresh: true)
        waiters = []
        return .startRefresh
    }

    /// The fetch finished with an answer of `sharing`: returns whom to answer with it and who
    /// must fetch for themselves. Completing when no fetch runs returns no one.
    @inlinable public mutating func complete(_ sharing: AnswerSharing, now: ContinuousClock.Instant)
        -> InFlightCompletion<Waiter>
    {
        guard case .fetching(let isRefresh) = phase else { return InFlightCompletion() }
        let waiters = self.waiters
        self.waiters = []
        switch sharing {
        case .shared:
            phase = .idle
            return InFlightCompletion(answered: waiters)
        case .fetcherOnly(let remember):
            phase = remember ? .passing(until: now + Self.passDuration) : .idle
            if isRefresh { return InFlightCompletion(refetching: waiters) }
            return InFlightCompletion(answered: Array(waiters.prefix(1)), refetching: Array(waiters.dropFirst()))
        }
    }

    /// A fetch made alone (`.fetchAlone`, or a waiter refetching) ended with an answer of
    /// `sharing`: a shared one ends the pass, one that says the key is private starts or renews it.
    @inlinable public mutating func answeredAlone(_ sharing: AnswerSharing, now: ContinuousClock.Instant) {
        switch (phase, sharing) {
        case (.fetching, _):
            // The fetch under way decides when it completes.
            break
        case (_, .shared):
            phase = .idle
        case (_, .fetcherOnly(remember: true)):
            phase = .passing(until: now + Self.passDuration)
        case (_, .fetcherOnly(remember: false)):
            break
        }
    }
}

/// Where an `InFlightFetch` stands. Not nested in it (a type nested in a generic one is generic
/// too), and the waiters live beside it: copying or destroying a fetch in another module's
/// specialised code then never looks up the metadata of a generic enum (each lookup cost about
/// 300 instructions, a dozen of them on every miss).
@usableFromInline
enum InFlightPhase: Sendable {
    case idle
    /// `isRefresh`: started by stale-while-revalidate rather than by a miss.
    case fetching(isRefresh: Bool)
    /// The last answer may not be shared: misses fetch alone until `until`.
    case passing(until: ContinuousClock.Instant)
}

/// Whom a finished fetch answers: `answered` get its outcome; `refetching` were waiting for an
/// answer they may not have, and fetch for themselves.
public struct InFlightCompletion<Waiter> {
    public var answered: [Waiter] = []
    public var refetching: [Waiter] = []

    @inlinable public init(answered: [Waiter] = [], refetching: [Waiter] = []) {
        self.answered = answered
        self.refetching = refetching
    }
}

extension InFlightFetch: Sendable where Waiter: Sendable {}
extension InFlightCompletion: Sendable where Waiter: Sendable {}
