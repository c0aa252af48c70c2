// The in-flight fetches of every event loop, by cache key (SPEC section 5): where a miss learns
// whether it leads the upstream request or waits for someone else's.

import Synchronization

/// The `InFlightFetch` of every key with a fetch under way, shared by all event loops.
///
/// Keys are spread over mutex-guarded shards so loops rarely contend. A critical section is one
/// dictionary operation: waiters come back to the caller, who answers them after the lock is
/// released, on their own loops. An entry disappears as soon as its fetch completes, so the
/// table holds only keys in flight.
package final class InFlightTable<Key: Hashable & Sendable, Waiter: Sendable>: Sendable {
    package typealias JoinAction = InFlightFetch<Waiter>.JoinAction
    package typealias RefreshAction = InFlightFetch<Waiter>.RefreshAction

    private struct Shard {
        var fetches: [Key: InFlightFetch<Waiter>] = [:]
        /// Joins that waited instead of fetching; summed over shards on read.
        var coalesced = 0
    }

    /// A class box because an array cannot hold the non-copyable `Mutex` itself.
    private final class ShardBox: Sendable {
        let state = Mutex(Shard())
    }

    private let shards: [ShardBox]

    /// `shardCount` bounds contention: two loops block each other only on keys of one shard.
    package init(shardCount: Int = 16) {
        shards = (0..<max(1, shardCount)).map { _ in ShardBox() }
    }

    /// A client missed on `key`: `.startFetch` if it leads a new fetch, `.wait` otherwise.
    package func join(_ key: Key, waiter: Waiter) -> JoinAction {
        shard(for: key).state.withLock { shard in
            let action = shard.fetches[key, default: InFlightFetch()].join(waiter)
            if action == .wait { shard.coalesced += 1 }
            return action
        }
    }

    /// A stale entry for `key` was served: `.startRefresh` unless a fetch for it is under way.
    package func beginRefresh(_ key: Key) -> RefreshAction {
        shard(for: key).state.withLock { shard in
            shard.fetches[key, default: InFlightFetch()].beginRefresh()
        }
    }

    /// The fetch for `key` finished: removes it and returns every waiter to answer (none for a
    /// refresh nobody joined, or a key not in flight).
    package func complete(_ key: Key) -> [Waiter] {
        shard(for: key).state.withLock { shard in
            guard var fetch = shard.fetches.removeValue(forKey: key) else { return [] }
            return fetch.complete()
        }
    }

    /// Keys with a fetch under way.
    package var count: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.fetches.count } }
    }

    /// Joins since start that waited for another client's fetch (`coalesced` in `/stats`).
    package var coalesced: Int {
        shards.reduce(0) { total, box in total + box.state.withLock { $0.coalesced } }
    }

    private func shard(for key: Key) -> ShardBox {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }
}
