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
/// fetching ──leave (others wait, or a refresh)──▶ fetching(waiters - [w]) → .stillAwaited
/// fetching ──leave (the last waiter of a miss)──▶ idle                   → .cancelFetch(leader)
/// ```
/// The first waiter is held inline and the others in an array (a miss nobody else joins
/// allocates nothing for its waiters). The leader is a waiter like any other: it gets `.startFetch`, and its answer comes from
/// `complete` with everyone else's. A client that goes away (a reset stream, a closed
/// connection) `leave`s: the fetch goes on while anyone else waits on it, and when the last
/// waiter of a miss leaves, the caller is told to cancel the origin exchange, so that a client
/// cannot make the origin work for answers nobody reads (rapid reset, CVE-2023-44487).
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
    /// The first client waiting for the fetch under way (a miss's leader), held inline: most
    /// fetches have no other waiter, and an array for one cost an allocation and a copy of it.
    /// Nil in every other phase.
    @usableFromInline var first: Waiter?
    /// The clients that joined after `first`; empty in every other phase.
    @usableFromInline var others: [Waiter] = []
    /// The waiter that started the miss under way (it runs the fetch), kept after it leaves:
    /// whom to tell to cancel it. Nil in every other phase, and for a refresh.
    @usableFromInline var leader: Waiter?

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
    @inlinable public var waiterCount: Int { (first == nil ? 0 : 1) + others.count }

    /// Whether misses fetch alone at `now` (the key's last answer could not be shared).
    @inlinable public func isPassing(at now: ContinuousClock.Instant) -> Bool {
        if case .passing(let until) = phase { return InFlightPhase.elapsed(now) < until }
        return false
    }

    /// Whether the value holds nothing worth keeping at `now`: no fetch, no live pass.
    @inlinable public func isSpent(at now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .idle: true
        case .fetching: false
        case .passing(let until): InFlightPhase.elapsed(now) >= until
        }
    }

    /// A client missed the cache: it leads a new fetch, waits for the one under way (a refresh
    /// included, whose answer is as fresh as any), or fetches alone while the key passes.
    /// The waiter is consumed: kept when it leads or waits, dropped when it fetches alone (the
    /// caller still holds what it needs for that).
    @inlinable public mutating func join(_ waiter: consuming Waiter, now: ContinuousClock.Instant) -> JoinAction {
        switch phase {
        case .passing(let until) where InFlightPhase.elapsed(now) < until:
            return .fetchAlone
        case .idle, .passing:
            phase = .fetching(isRefresh: false)
            first = waiter
            leader = first
            return .startFetch
        case .fetching:
            // A refresh has no leader: its first waiter is the first to join.
            if first == nil {
                first = waiter
            } else {
                others.append(waiter)
            }
            return .wait
        }
    }

    /// A client was served a stale entry: refresh it in the background unless a fetch runs.
    @inlinable public mutating func beginRefresh() -> RefreshAction {
        if case .fetching = phase { return .alreadyFetching }
        phase = .fetching(isRefresh: true)
        first = nil
        others = []
        leader = nil
        return .startRefresh
    }

    /// The fetch finished with an answer of `sharing`: returns whom to answer with it and who
    /// must fetch for themselves. Completing when no fetch runs returns no one.
    @inlinable public mutating func complete(_ sharing: AnswerSharing, now: ContinuousClock.Instant)
        -> InFlightCompletion<Waiter>
    {
        guard case .fetching(let isRefresh) = phase else { return InFlightCompletion() }
        let first = self.first.take()
        let others = self.others
        self.others = []
        leader = nil
        switch sharing {
        case .shared:
            phase = .idle
            return InFlightCompletion(first: first, others: others, firstIsAnswered: true, othersAreAnswered: true)
        case .fetcherOnly(let remember):
            phase = remember ? .passing(until: InFlightPhase.elapsed(now) + Self.passDuration) : .idle
            // The leader of a miss has its own answer; a refresh has no leader.
            return InFlightCompletion(
                first: first, others: others, firstIsAnswered: !isRefresh, othersAreAnswered: false)
        }
    }

    /// The waiter `isLeaving` names no longer wants the answer (its client reset the stream or
    /// closed the connection): it is forgotten, and when it was the last waiter of a miss, the
    /// fetch is over for the table (the key is idle) and the caller cancels its origin exchange
    /// through the leader. A refresh goes on without waiters: its answer refreshes the entry.
    @inlinable public mutating func leave(where isLeaving: (Waiter) -> Bool) -> InFlightDeparture<Waiter> {
        guard case .fetching(let isRefresh) = phase else { return .notWaiting }
        if let waiter = first, isLeaving(waiter) {
            first = others.isEmpty ? nil : others.removeFirst()
        } else if let index = others.firstIndex(where: isLeaving) {
            others.remove(at: index)
        } else {
            return .notWaiting
        }
        guard first == nil, !isRefresh, let leader = leader.take() else { return .stillAwaited }
        phase = .idle
        return .cancelFetch(leader: leader)
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
            phase = .passing(until: InFlightPhase.elapsed(now) + Self.passDuration)
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
    /// The last answer may not be shared: misses fetch alone until `until`, a time since
    /// `origin`. Not a `ContinuousClock.Instant`: the standard library does not fix that type's
    /// layout, so an enum holding one (and every fetch and optional fetch around it) was
    /// copied, tested and destroyed through runtime type metadata, some 1,200 instructions a
    /// miss; a `Duration`'s layout is fixed.
    case passing(until: Duration)

    /// What `passing(until:)` measures from: a fixed instant of this process.
    @usableFromInline static let origin = ContinuousClock.now

    /// `now` as a time since `origin`.
    @inlinable static func elapsed(_ now: ContinuousClock.Instant) -> Duration { origin.duration(to: now) }
}

/// What follows a waiter's `leave`.
public enum InFlightDeparture<Waiter> {
    /// The waiter was not waiting on the fetch (answered already, or never joined).
    case notWaiting
    /// Others still wait on the fetch (or it is a refresh): it goes on.
    case stillAwaited
    /// Nobody waits any more: the leader's loop aborts the origin exchange; the fetch must not
    /// `complete` (the key is idle again, and a new miss starts a new fetch).
    case cancelFetch(leader: Waiter)
}

/// Whom a finished fetch answers: `answered` get its outcome; `refetching` were waiting for an
/// answer they may not have, and fetch for themselves. The waiters are held as the fetch held
/// them (the first inline, the others in their array), each group answered or not as a whole:
/// a completion moves them to the caller without making a new array.
public struct InFlightCompletion<Waiter> {
    @usableFromInline var first: Waiter?
    @usableFromInline var others: [Waiter]
    @usableFromInline var firstIsAnswered: Bool
    @usableFromInline var othersAreAnswered: Bool

    @inlinable init(first: Waiter?, others: [Waiter], firstIsAnswered: Bool, othersAreAnswered: Bool) {
        self.first = first
        self.others = others
        self.firstIsAnswered = firstIsAnswered
        self.othersAreAnswered = othersAreAnswered
    }

    /// Nobody to answer (a key not in flight).
    @inlinable public init() {
        self.init(first: nil, others: [], firstIsAnswered: true, othersAreAnswered: true)
    }

    /// Calls `body` with each waiter that gets the outcome, in the order they joined, in place.
    @inlinable public func forEachAnswered(_ body: (Waiter) -> Void) {
        if firstIsAnswered, let first { body(first) }
        if othersAreAnswered { for index in others.indices { body(others[index]) } }
    }

    /// Calls `body` with each waiter that must fetch for itself, in the order they joined.
    @inlinable public func forEachRefetching(_ body: (Waiter) -> Void) {
        if !firstIsAnswered, let first { body(first) }
        if !othersAreAnswered { for waiter in others { body(waiter) } }
    }

    /// The waiters that get the outcome, in the order they joined.
    public var answered: [Waiter] {
        var waiters: [Waiter] = []
        forEachAnswered { waiters.append($0) }
        return waiters
    }

    /// The waiters that fetch for themselves, in the order they joined.
    public var refetching: [Waiter] {
        var waiters: [Waiter] = []
        forEachRefetching { waiters.append($0) }
        return waiters
    }
}

extension InFlightFetch: Sendable where Waiter: Sendable {}
extension InFlightCompletion: Sendable where Waiter: Sendable {}
extension InFlightDeparture: Sendable where Waiter: Sendable {}
