// The response cache (README "The response cache"): entries by key, bounded in bytes, evicted by SIEVE, purged
// by operation, document or entity tag, shared by every event loop.

import Synchronization

/// The in-memory response cache: thread-safe, sharded so that event loops rarely contend.
///
/// Each key belongs to one of `shardCount` shards, each a `SieveShard` behind its own mutex with
/// `maxBytes / shardCount` of the budget, so the total never exceeds `maxBytes`. The shard count
/// grows with the budget (`shardCount(forMaxBytes:)`): a shard must be large enough that its own
/// scan of one-hit entries cannot push out an entry hit every few requests, so a small cache is
/// one shard (one SIEVE, at least as good as one LRU) and only a large one is split. A critical section
/// is a few dictionary operations: no I/O and no body copy (entries are shared objects). Time is a
/// parameter of every call, so that tests can age entries without sleeping.
package final class ResponseStore: Sendable {
    /// The bound on the summed cost of all entries, `cache.max_bytes`.
    package let maxBytes: Int
    /// The largest cost an entry may have and still be stored: one shard's budget.
    package let maxEntryCost: Int
    private let shards: [LockedShard]
    /// The longest a cache in front may keep an answer stored here since start (nanoseconds):
    /// `longestPublicLifetime`.
    private let longestLifetime = Atomic<Int64>(0)
    /// The purges applied lately, for fetches that began before one (`PurgeHistory`).
    package let purges = PurgeHistory()

    /// The fewest bytes a shard is given: below 2 × this a store is one shard.
    package static let minimumShardBytes = 4 << 20
    /// The most shards: enough that event loops on many cores rarely meet on one lock.
    package static let maximumShardCount = 16

    /// How many shards a store of `maxBytes` has: one per `minimumShardBytes`, 1 to `maximumShardCount`.
    package static func shardCount(forMaxBytes maxBytes: Int) -> Int {
        min(maximumShardCount, max(1, maxBytes / minimumShardBytes))
    }

    /// A store bounded by `maxBytes`, split in `shardCount` shards (by default as many as its size
    /// warrants, `shardCount(forMaxBytes:)`).
    package init(maxBytes: Int, shardCount: Int? = nil) {
        let shardCount = shardCount ?? Self.shardCount(forMaxBytes: maxBytes)
        precondition(shardCount > 0, "a response store has at least one shard")
        self.maxBytes = max(0, maxBytes)
        maxEntryCost = self.maxBytes / shardCount
        shards = (0..<shardCount).map { [maxEntryCost] _ in LockedShard(budget: maxEntryCost) }
    }

    package var shardCount: Int { shards.count }

    /// How the entry for `key` may be served at `now`; a hit marks it recently used for eviction.
    ///
    /// An entry past its TTL plus the longer of its stale windows is removed and counted as expired.
    package func lookup(_ key: CacheKey, now: ContinuousClock.Instant) -> CacheLookup {
        shard(for: key).state.withLock { $0.lookup(key, now: now) }
    }

    /// Inserts or replaces `entry`; returns how many other entries were evicted to make room.
    ///
    /// An entry whose cost exceeds one shard's budget (`maxEntryCost`) is not stored and is
    /// counted as rejected; an entry it would have replaced is removed.
    @discardableResult
    package func store(_ entry: CacheEntry, now: ContinuousClock.Instant) -> Int {
        noteLifetime(of: entry)
        return shard(for: entry.key).state.withLock { $0.store(entry, now: now) }
    }

    /// The longest a cache in front (a CDN, Varnish) may keep an answer stored here since start:
    /// the TTL its `max-age` announced plus the longer of its stale windows, over every public
    /// entry. A purge sent to the caches in front is retried at least this long (docs/CDN.md).
    package var longestPublicLifetime: Duration {
        .nanoseconds(longestLifetime.load(ordering: .relaxed))
    }

    private func noteLifetime(of entry: CacheEntry) {
        guard !entry.isPerUser else { return }
        let lifetime = entry.ttl + max(entry.staleWhileRevalidate, entry.staleIfError)
        let nanoseconds = Int64(min(lifetime / .nanoseconds(1), Double(Int64.max)))
        var current = longestLifetime.load(ordering: .relaxed)
        while nanoseconds > current {
            let (exchanged, original) = longestLifetime.compareExchange(
                expected: current, desired: nanoseconds, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    package func remove(_ key: CacheKey) {
        shard(for: key).state.withLock { $0.remove(key) }
    }

    /// Removes (hard) or marks stale as of `now` (soft) every entry `selector` reaches; returns how many.
    ///
    /// A soft-purged entry is served as stale for its `stale_while_revalidate` window after `now`,
    /// and within `stale_if_error` when the origin fails, then goes like any expired entry.
    @discardableResult
    package func purge(_ selector: PurgeSelector, soft: Bool, now: ContinuousClock.Instant) -> Int {
        purges.record(selector)
        return shards.reduce(0) { total, shard in
            total + shard.state.withLock { $0.purge(selector, soft: soft, now: now) }
        }
    }

    /// Gives each stored entry the TTL `lowered` returns for it (nil: it keeps its own), as a copy
    /// in its place (`SieveShard.replace`); returns how many were replaced. A shard's entries are
    /// listed under its lock and copied outside it, a few at a time (so that copies of a whole
    /// shard are never held at once), and a copy goes in only where the entry it was made from is
    /// still stored: a purge or a newer answer that came meanwhile wins.
    @discardableResult
    package func lowerTTLs(_ lowered: (CacheEntry) -> Duration?) -> Int {
        var replaced = 0
        for shard in shards {
            let entries = shard.state.withLock { $0.entries() }
            var start = 0
            while start < entries.count {
                let batch = entries[start..<min(entries.count, start + Self.copiesAtOnce)]
                start = batch.endIndex
                let copies = batch.compactMap { entry in lowered(entry).map { (old: entry, new: entry.withTTL($0)) } }
                guard !copies.isEmpty else { continue }
                replaced += shard.state.withLock { shard in
                    copies.reduce(0) { count, copy in count + (shard.replace(copy.old, with: copy.new) ? 1 : 0) }
                }
            }
        }
        return replaced
    }

    /// Entries `lowerTTLs` copies before it puts them in.
    private static let copiesAtOnce = 64

    /// Every stored entry with the instant a soft purge made it stale (nil when none did), in an
    /// order close to recency (`SieveShard.entriesByRecency`): each shard's entries hit since its
    /// hand last passed first, then the rest, newest stored first, the shards taken in turn. Each
    /// shard is copied under its own lock (references only, no body), so the loops keep serving.
    package func entriesByRecency() -> [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)] {
        let perShard = shards.map { shard in shard.state.withLock { $0.entriesByRecency() } }
        var merged: [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)] = []
        merged.reserveCapacity(perShard.reduce(0) { $0 + $1.count })
        let longest = perShard.map(\.count).max() ?? 0
        for rank in 0..<longest {
            for entries in perShard where rank < entries.count { merged.append(entries[rank]) }
        }
        return merged
    }

    /// Stores `entries`, given most recently used first, as far as each shard has room, evicting
    /// nothing: a full shard passes the rest of its entries over, so the most recent are kept.
    /// Returns how many were stored and their cost.
    @discardableResult
    package func restore(_ entries: [CacheEntry]) -> (stored: Int, bytes: Int) {
        var byShard = Array(repeating: [CacheEntry](), count: shards.count)
        for entry in entries {
            noteLifetime(of: entry)
            byShard[shardIndex(for: entry.key)].append(entry)
        }
        var total = (stored: 0, bytes: 0)
        for (index, entries) in byShard.enumerated() where !entries.isEmpty {
            let restored = shards[index].state.withLock { $0.restore(entries) }
            total.stored += restored.stored
            total.bytes += restored.bytes
        }
        return total
    }

    /// The store's figures, summed over shards (each read under its own lock, so not one instant).
    package var statistics: StoreStatistics {
        var statistics = StoreStatistics()
        statistics.maxBytes = maxBytes
        for shard in shards {
            shard.state.withLock { shard in
                statistics.entries += shard.count
                statistics.bytes += shard.bytes
                statistics.evictions += shard.evictions
                statistics.expired += shard.expired
                statistics.rejected += shard.rejected
            }
        }
        return statistics
    }

    /// Slots allocated over all shards, holding an entry or free for the next (for tests: a freed
    /// slot is reused before the slot array grows).
    package var slotCapacity: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.slotCapacity } }
    }

    /// Every way the shards' bookkeeping is inconsistent; empty when all is well (for tests).
    package func consistencyProblems() -> [String] {
        shards.enumerated().flatMap { number, shard in
            shard.state.withLock { $0.consistencyProblems() }.map { "shard \(number): \($0)" }
        }
    }

    /// The key's shard, chosen by digest bytes 8..<16: the dictionaries hash bytes 0..<8, so a
    /// shard's keys still spread over its dictionary's buckets.
    private func shard(for key: CacheKey) -> LockedShard {
        shards[shardIndex(for: key)]
    }

    private func shardIndex(for key: CacheKey) -> Int {
        Int(key.digest.words.1 % UInt64(shards.count))
    }
}

/// A shard behind its mutex; a class because an array cannot hold a non-copyable `Mutex` itself.
private final class LockedShard: Sendable {
    let state: Mutex<SieveShard>

    init(budget: Int) {
        state = Mutex(SieveShard(budget: budget))
    }
}
