// The in-flight fetches of every event loop, by cache key (coalescing, docs/ARCHITECTURE.md):
// where a miss learns whether it leads the upstream request, waits for someone else's, or
// fetches alone because the key's answers may not be shared.

import Synchronization

/// The `InFlightFetch` of every key with a fetch under way, shared by all event loops.
///
/// Keys are spread over mutex-guarded shards so loops rarely contend. A critical section is one
/// dictionary operation: waiters come back to the caller, who answers them after the lock is
/// released, on their own loops. An entry disappears as soon as its fetch completes, unless its
/// answer may not be shared and says so of the key (`AnswerSharing.fetcherOnly(remember: true)`):
/// then it stays, passing, for `InFlightFetch.passDuration`; spent entries are swept once they
/// double in number, so the table holds the keys in flight and the recent passing ones.
///
/// Its operations are `@inlinable` and public so that the module using it specialises them for
/// its own key and waiter: Swift serialises the bodies of public `@inlinable` functions only
/// (a `package` one is called unspecialised from another module of the package), and called
/// unspecialised, every miss looked generic metadata up about thirty times (a fifth of a miss's
/// instructions in the default configuration).
public final class InFlightTable<Key: Hashable & Sendable, Waiter: Sendable>: Sendable {
    public typealias JoinAction = InFlightFetch<Waiter>.JoinAction
    public typealias RefreshAction = InFlightFetch<Waiter>.RefreshAction

    @usableFromInline
    struct Shard {
        @usableFromInline var fetches: [Key: InFlightFetch<Waiter>] = [:]
        /// Joins that waited instead of fetching; summed over shards on read.
        @usableFromInline var coalesced = 0
        /// Fetches stopped because every client waiting on them left; summed over shards on read.
        @usableFromInline var cancelled = 0
        /// Entries held at which passing ones past their time are swept next.
        @usableFromInline var sweepAt = Shard.minimumSweep

        @inlinable static var minimumSweep: Int { 64 }

        @inlinable init() {}

        /// Takes `key`'s entry out, to be changed and put back with `put`: the dictionary's
        /// in-place accessors (`fetches[key]?.…`, `fetches[key, default:]`) run unspecialised
        /// in the standard library, each call looking the value's generic metadata up.
        @inlinable
        mutating func take(_ key: Key) -> InFlightFetch<Waiter>? {
            fetches.removeValue(forKey: key)
        }

        /// Puts `fetch` back under `key` unless it holds nothing worth keeping at `now`.
        @inlinable
        mutating func put(_ fetch: consuming InFlightFetch<Waiter>, for key: Key, now: ContinuousClock.Instant) {
            if !fetch.isSpent(at: now) { fetches[key] = fetch }
        }

        /// Amortised: a sweep over the shard each time its entries double.
        @inlinable
        mutating func sweepIfDue(now: ContinuousClock.Instant) {
            guard fetches.count >= sweepAt else { return }
            fetches = fetches.filter { !$0.value.isSpent(at: now) }
            sweepAt = max(Shard.minimumSweep, fetches.count * 2)
        }
    }

    /// A class box because an array cannot hold the non-copyable `Mutex` itself.
    @usableFromInline
    final class ShardBox: Sendable {
        @usableFromInline let state = Mutex(Shard())

        @usableFromInline init() {}
    }

    @usableFromInline let shards: [ShardBox]
    /// Spreads keys over the shards.
    @usableFromInline let shardHash: @Sendable (Key) -> Int

    /// `shardCount` bounds contention: two loops block each other only on keys of one shard.
    /// `shardHash` picks a key's shard: its `hashValue` unless the key has a cheaper value that
    /// spreads as well (a cache key's digest bits: `hashValue` would run the seeded hasher once
    /// more, besides the dictionary's own, on each join and each completion).
    public init(shardCount: Int = 16, shardHash: @escaping @Sendable (Key) -> Int = { $0.hashValue }) {
        shards = (0..<max(1, shardCount)).map { _ in ShardBox() }
        self.shardHash = shardHash
    }

    /// A client missed on `key` at `now`: `.startFetch` if it leads a new fetch, `.wait` for
    /// the one under way, `.fetchAlone` while the key's answers may not be shared.
    /// The waiter is consumed: kept by the table when it leads or waits, dropped when it fetches
    /// alone (a copy kept for the table cost a retain and a release of each of its fields).
    @inlinable
    public func join(_ key: Key, waiter: consuming Waiter, now: ContinuousClock.Instant) -> JoinAction {
        var waiter = Optional(waiter)
        return shard(for: key).state.withLock { shard in
            var fetch = shard.take(key) ?? InFlightFetch()
            let action = fetch.join(waiter.take()!, now: now)
            // Fetching or passing now: never spent. Moved in, not copied (a copy retained its
            // waiters and was destroyed again).
            shard.fetches[key] = consume fetch
            switch action {
            case .wait: shard.coalesced += 1
            case .startFetch: shard.sweepIfDue(now: now)
            case .fetchAlone: break
            }
            return action
        }
    }

    /// A stale entry for `key` was served: `.startRefresh` unless a fetch for it is under way.
    @inlinable
    public func beginRefresh(_ key: Key) -> RefreshAction {
        shard(for: key).state.withLock { shard in
            var fetch = shard.take(key) ?? InFlightFetch()
            let action = fetch.beginRefresh()
            shard.fetches[key] = fetch
            return action
        }
    }

    /// The fetch for `key` finished at `now` with an answer of `sharing`: returns whom to answer
    /// with it and who must fetch for themselves (nobody for a refresh nobody joined, or a key
    /// not in flight).
    @inlinable
    public func complete(_ key: Key, sharing: AnswerSharing, now: ContinuousClock.Instant)
        -> InFlightCompletion<Waiter>
    {
        shard(for: key).state.withLock { shard in
            guard var fetch = shard.take(key) else { return InFlightCompletion() }
            let completion = fetch.complete(sharing, now: now)
            shard.put(consume fetch, for: key, now: now)
            return completion
        }
    }

    /// A fetch of `key` made for one client alone ended at `now` with an answer of `sharing`.
    @inlinable
    public func answeredAlone(_ key: Key, sharing: AnswerSharing, now: ContinuousClock.Instant) {
        shard(for: key).state.withLock { shard in
            let taken = shard.take(key)
            guard sharing != .shared || taken != nil else { return }
            var fetch = taken ?? InFlightFetch()
            fetch.answeredAlone(sharing, now: now)
            shard.put(consume fetch, for: key, now: now)
        }
    }

    /// The waiter of `key` that `isLeaving` names went away (docs/ARCHITECTURE.md, "The flow of
    /// one fetch"): `.cancelFetch` when it was the last waiter of a miss, whose leader's loop then
    /// aborts the origin exchange.
    @inlinable
    public func leave(_ key: Key, where isLeaving: (Waiter) -> Bool) -> InFlightDeparture<Waiter> {
        shard(for: key).state.withLock { shard in
            guard var fetch = shard.take(key) else { return .notWaiting }
            let departure = fetch.leave(where: isLeaving)
            // A cancelled fetch leaves the key idle: nothing to keep.
            if case .cancelFetch = departure {
                shard.cancelled += 1
                return departure
            }
            shard.fetches[key] = consume fetch
            return departure
        }
    }

    /// Keys with a fetch under way.
    package var count: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.fetches.values.count(where: { !$0.isIdle }) } }
    }

    /// Keys held: those in flight and those passing (spent ones until the next sweep).
    package var heldCount: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.fetches.count } }
    }

    /// Whether misses on `key` fetch alone at `now` (its last answer could not be shared).
    @inlinable
    public func isPassing(_ key: Key, now: ContinuousClock.Instant) -> Bool {
        shard(for: key).state.withLock { $0.fetches[key]?.isPassing(at: now) ?? false }
    }

    /// Fetches since start stopped because every client waiting on them left (`upstream`
    /// `cancelled` in `/stats`).
    package var cancelled: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.cancelled } }
    }

    /// Joins since start that waited for another client's fetch (`coalesced` in `/stats`).
    package var coalesced: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.coalesced } }
    }

    @inlinable
    func shard(for key: Key) -> ShardBox {
        shards[Int(UInt(bitPattern: shardHash(key)) % UInt(shards.count))]
    }
}
