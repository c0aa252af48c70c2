// This proxy's purges on their way to Redis (docs/FLEET.md, "No purge lost"): each waits here
// until Redis has applied it to the L2 and the purge log, and is retried until then; meanwhile,
// and for a short while after (an L2 read sent before the confirmation may be answered after it),
// it hides from this proxy the L2 entries it reaches, so that an entry purged here is never read
// back from a Redis that had not deleted it yet (paused, slow, refusing scripts).

/// The purges applied here and not yet confirmed by Redis, oldest first.
package struct PurgeOutbox: Sendable {
    /// One purge waiting for Redis.
    package struct Pending: Sendable, Equatable {
        /// Unique in this process: with the proxy's id, it makes a retry idempotent in Redis.
        package var sequence: UInt64
        package var purge: PurgeRequest
        /// When it was made: entries stored later are not reached by it.
        package var madeAt: WallClockTime
        /// Already announced on the channel without the log (Redis refused the script).
        package var isAnnounced = false
    }

    /// Pending purges beyond this collapse into one purge of everything.
    package let capacity: Int
    /// How long a confirmed purge still hides entries: longer than any L2 read may take.
    package let retention: Duration
    package private(set) var pending: [Pending] = []
    /// Confirmed purges, each with the instant it stops hiding entries.
    private var confirmed: [(purge: Pending, until: ContinuousClock.Instant)] = []
    private var nextSequence: UInt64 = 1

    package init(capacity: Int = 10_000, retention: Duration = .seconds(2)) {
        self.capacity = max(1, capacity)
        self.retention = retention
    }

    /// Pending and recently confirmed purges: whether an L2 read needs to look at all.
    package var hidingCount: Int { pending.count + confirmed.count }

    package var isEmpty: Bool { pending.isEmpty }
    package var first: Pending? { pending.first }

    /// Queues `purge` made at `now`. When the outbox is full, everything pending becomes one purge
    /// of everything (soft only if every one was soft): more work for the fleet, never a lost purge.
    @discardableResult
    package mutating func add(_ purge: PurgeRequest, at now: WallClockTime) -> Pending {
        defer { nextSequence += 1 }
        if pending.count >= capacity {
            let soft = purge.soft && pending.allSatisfy(\.purge.soft)
            pending = [Pending(sequence: nextSequence, purge: PurgeRequest(selector: .all, soft: soft), madeAt: now)]
            return pending[0]
        }
        let added = Pending(sequence: nextSequence, purge: purge, madeAt: now)
        pending.append(added)
        return added
    }

    /// Redis applied the purge numbered `sequence` at `now`; it goes on hiding for `retention`.
    package mutating func confirm(_ sequence: UInt64, now: ContinuousClock.Instant) {
        confirmed.removeAll { $0.until <= now }
        guard let index = pending.firstIndex(where: { $0.sequence == sequence }) else { return }
        confirmed.append((pending.remove(at: index), now + retention))
    }

    /// Forgets confirmed purges past their retention.
    package mutating func prune(now: ContinuousClock.Instant) {
        confirmed.removeAll { $0.until <= now }
    }

    /// Redis refused the purge numbered `sequence`, which was then announced without the log.
    package mutating func markAnnounced(_ sequence: UInt64) {
        if let index = pending.firstIndex(where: { $0.sequence == sequence }) { pending[index].isAnnounced = true }
    }

    /// What this proxy's pending or just confirmed purges make of `entry`, read from the L2.
    package enum Verdict: Sendable, Equatable {
        /// A hard purge reached it: a miss.
        case hidden
        /// Only soft purges reached it: stale from the earliest of them.
        case staleFrom(WallClockTime)
    }

    /// The verdict on `entry` at `now`; nil when no purge reaches it. A purge reaches an entry
    /// stored at or before it and within its selector: one Redis may not have purged yet.
    package func verdict(on entry: CacheEntry, now: ContinuousClock.Instant) -> Verdict? {
        var staleFrom: WallClockTime?
        let live = pending + confirmed.filter { $0.until > now }.map(\.purge)
        for purge in live where entry.storedAtWallClock <= purge.madeAt && Self.reaches(purge.purge.selector, entry) {
            guard purge.purge.soft else { return .hidden }
            staleFrom = min(staleFrom ?? purge.madeAt, purge.madeAt)
        }
        return staleFrom.map { .staleFrom($0) }
    }

    /// Whether a purge hides `entry` altogether (a hard one) at `now`.
    package func hides(_ entry: CacheEntry, now: ContinuousClock.Instant) -> Bool {
        verdict(on: entry, now: now) == .hidden
    }

    static func reaches(_ selector: PurgeSelector, _ entry: CacheEntry) -> Bool {
        switch selector {
        case .all: true
        case .operation(let name): entry.operationName == name
        case .document(let digest): entry.documentDigest == digest
        case .tag(let tag): entry.tags.contains(tag)
        }
    }
}
