// How a proxy follows the fleet's purge log (docs/FLEET.md, "No purge lost"): the rules for when
// to replay, when to drop the whole local cache, and when local entries stop counting as fresh.
// Pure: the Redis tier feeds it what happened and carries out the actions it returns.

/// Follows the purge log for one process: tracks the last entry applied, replays after any gap in
/// the subscription, and drops the local cache when the log no longer reaches back far enough.
///
/// Events: the subscriber subscribed or was lost, a message arrived on the channel, a page of the
/// log was read (or failed), the once-a-second check saw the log's last id (or failed), a tick.
/// During a gap (no subscription, or Redis not answering the checks) longer than `staleAfter`,
/// every local entry is marked stale once: it is served STALE while one refresh reaches the origin.
package struct PurgeLogFollower: Sendable {
    /// What the Redis tier does next.
    package enum Action: Sendable, Equatable {
        /// Apply this purge locally (another proxy's; never announced again).
        case apply(PurgeMessage, replayed: Bool)
        /// Read the log from this id, inclusive (`XRANGE <id> + COUNT <pageSize>`), and call `read`.
        case read(from: PurgeLogID)
        /// Run the log check now and call `checked` (the first position comes from it).
        case check
        /// Mark every local entry stale as of now (a local soft purge of everything).
        case markLocalEntriesStale
        /// Remove every local entry, and log why at warning.
        case dropLocalCache(DropReason)
        /// Log at warning: log entries past ours did not arrive on the channel.
        case warnMissed(applied: PurgeLogID, logEnd: PurgeLogID)
        /// Replay over: the local cache is served as fresh again.
        case caughtUp(replayed: Int, gap: Duration?)
    }

    /// Why the whole local cache was dropped.
    package enum DropReason: Sendable, Equatable, CustomStringConvertible {
        /// The log's first entry is past the last one applied here: older entries were trimmed.
        case logTrimmed(first: PurgeLogID, applied: PurgeLogID)
        /// The log no longer holds the last entry applied here (Redis restarted, or lost it).
        case logLost(applied: PurgeLogID)
        /// The proxy served from its cache before it ever reached the log (Redis unreachable at start).
        case neverFollowed
        /// A purge of everything moved the fleet's generation while this proxy was down: the
        /// entries its cache snapshot brought back belong to the old one.
        case generationMoved(snapshot: UInt64, fleet: UInt64)

        /// The last purge applied here, when the log no longer holds it. Redis itself may have
        /// lost it then (a failover to a replica that had not received it, a Redis restored from
        /// an older copy), and with it its deletions in the fleet tier: that is so when the log
        /// still holds entries older than it, which neither a trimmed log nor a Redis that
        /// started empty does.
        package var missingApplied: PurgeLogID? {
            switch self {
            case .logTrimmed(_, let applied), .logLost(let applied): applied
            case .neverFollowed, .generationMoved: nil
            }
        }

        package var description: String {
            switch self {
            case .logTrimmed(let first, let applied):
                "the purge log starts at \(first), after \(applied), the last purge applied here "
                    + "(trimmed, or Redis restarted)"
            case .logLost(let applied):
                "the purge log no longer holds \(applied), the last purge applied here (Redis restarted or lost it)"
            case .neverFollowed:
                "this proxy cached answers before it could read the purge log"
            case .generationMoved(let snapshot, let fleet):
                "the fleet's generation is \(fleet), not \(snapshot) as when the cache snapshot was written (a purge "
                    + "of everything while this proxy was down)"
            }
        }
    }

    private enum Phase: Sendable, Equatable {
        /// Not subscribed yet since start.
        case starting
        /// The subscription dropped.
        case lost
        /// Subscribed; reading what was missed (or the first position).
        case replaying
        /// Subscribed and caught up: messages are applied as they come.
        case following
    }

    /// This proxy's id: its own purges are skipped (already applied here).
    package let instanceID: String
    /// Entries asked for per read.
    package let pageSize: Int
    /// How long a gap may last before local entries are marked stale.
    package let staleAfter: Duration

    /// The last log entry applied (or skipped as this proxy's own); nil before the first position.
    package private(set) var lastApplied: PurgeLogID?
    private var phase = Phase.starting
    private var isReading = false
    private var hasFollowed = false
    /// When the current gap began: the subscription dropped or a check failed.
    private var gapSince: ContinuousClock.Instant?
    private var markedStale = false
    /// The last check failed: the next good one reads what may have been missed.
    private var checkFailed = false
    /// A log end seen by the previous check beyond `lastApplied`.
    private var suspectEnd: PurgeLogID?
    /// Messages that arrived while replaying, applied after it.
    private var queued: [PurgeMessage] = []
    private var replayed = 0
    /// The generation of the cache snapshot this proxy started with, until the first check.
    private var snapshotGeneration: UInt64?

    package init(instanceID: String, pageSize: Int = 500, staleAfter: Duration = .seconds(1)) {
        self.instanceID = instanceID
        self.pageSize = max(2, pageSize)
        self.staleAfter = staleAfter
    }

    /// Whether the proxy is caught up with the log (its local entries count as fresh).
    package var isFollowing: Bool { phase == .following }

    /// The proxy starts with the entries of a cache snapshot, already brought up to `position`
    /// (the last log entry read at start, `CacheSnapshotCatchUp`) with the fleet at `generation`
    /// (docs/OPERATING.md, "The cache across restarts"): the first subscription reads the log
    /// from there, as after any gap, so purges made since the start's read are applied too, and
    /// drops the whole local cache when the log no longer reaches back. Until it has caught up
    /// the start counts as a gap, so the loaded entries turn stale after `staleAfter`. Only
    /// before the first subscription.
    package mutating func resume(from position: PurgeLogID, generation: UInt64, now: ContinuousClock.Instant) {
        guard phase == .starting, lastApplied == nil else { return }
        lastApplied = position
        snapshotGeneration = generation
        gapSince = now
    }

    /// The check learned the fleet's generation: after a start from a snapshot, a generation
    /// other than the snapshot's means a purge of everything was made meanwhile.
    package mutating func generationSeen(_ generation: UInt64) -> [Action] {
        guard let snapshot = snapshotGeneration else { return [] }
        snapshotGeneration = nil
        guard generation != snapshot else { return [] }
        return [.dropLocalCache(.generationMoved(snapshot: snapshot, fleet: generation))]
    }

    /// The subscriber (re)subscribed: read what was missed, or learn the first position.
    package mutating func subscribed(now: ContinuousClock.Instant) -> [Action] {
        phase = .replaying
        queued = []
        guard let lastApplied else { return [.check] }
        isReading = true
        return [.read(from: lastApplied)]
    }

    /// The subscriber lost its connection: a gap begins.
    package mutating func subscriptionLost(now: ContinuousClock.Instant) -> [Action] {
        guard phase != .lost else { return [] }
        if phase != .starting { gapSince = gapSince ?? now }
        phase = .lost
        isReading = false
        queued = []
        return []
    }

    /// A message from the purge channel.
    package mutating func received(_ message: PurgeMessage, now: ContinuousClock.Instant) -> [Action] {
        guard let id = message.logID else {
            // From a proxy without the log: nothing to order it by.
            return message.sender == instanceID ? [] : [.apply(message, replayed: false)]
        }
        guard phase == .following, let lastApplied else {
            queued.append(message)
            return []
        }
        guard id > lastApplied else { return [] }
        self.lastApplied = id
        return message.sender == instanceID ? [] : [.apply(message, replayed: false)]
    }

    /// A page of the log, read from `lastApplied` inclusive.
    package mutating func read(_ entries: [PurgeLogEntry], now: ContinuousClock.Instant) -> [Action] {
        isReading = false
        guard phase == .replaying, let applied = lastApplied else { return [] }
        guard let first = entries.first, first.id == applied else {
            let reason: DropReason =
                if let first = entries.first, first.id > applied { .logTrimmed(first: first.id, applied: applied) }
                else { .logLost(applied: applied) }
            lastApplied = nil
            hasFollowed = true
            return [.dropLocalCache(reason), .check]
        }
        var actions: [Action] = []
        for entry in entries.dropFirst() {
            lastApplied = entry.id
            guard let message = entry.message, message.sender != instanceID else { continue }
            replayed += 1
            actions.append(.apply(message, replayed: true))
        }
        if entries.count >= pageSize, let lastApplied {
            isReading = true
            actions.append(.read(from: lastApplied))
        } else {
            actions += caughtUp(now: now)
        }
        return actions
    }

    /// A read of the log failed (Redis did not answer): the next tick tries again.
    package mutating func readFailed(now: ContinuousClock.Instant) -> [Action] {
        isReading = false
        return []
    }

    /// The once-a-second check saw `logEnd`, the log's last id (nil: no log); `localCacheIsEmpty`
    /// tells whether there is anything to drop.
    package mutating func checked(
        logEnd: PurgeLogID?, localCacheIsEmpty: Bool, now: ContinuousClock.Instant
    ) -> [Action] {
        let recovering = checkFailed
        checkFailed = false
        switch phase {
        case .starting, .lost:
            return []
        case .replaying:
            guard let applied = lastApplied else {
                guard let logEnd else { return [] }
                let drop: [Action] = !hasFollowed && !localCacheIsEmpty ? [.dropLocalCache(.neverFollowed)] : []
                lastApplied = logEnd
                return drop + caughtUp(now: now)
            }
            guard !isReading else { return [] }
            isReading = true
            return [.read(from: applied)]
        case .following:
            guard let applied = lastApplied, let logEnd else { return [] }
            if recovering || logEnd < applied {
                return catchUp(from: applied, now: now)
            }
            guard logEnd > applied else {
                suspectEnd = nil
                return []
            }
            if let suspect = suspectEnd, suspect > applied {
                // Seen a check ago and still not delivered by the channel.
                gapSince = gapSince ?? now
                return [.warnMissed(applied: applied, logEnd: suspect)] + catchUp(from: applied, now: now)
            }
            suspectEnd = logEnd
            return []
        }
    }

    /// The check failed (Redis did not answer, or refused): a gap may be under way.
    package mutating func checkFailed(now: ContinuousClock.Instant) -> [Action] {
        checkFailed = true
        if phase != .starting { gapSince = gapSince ?? now }
        return []
    }

    /// Once a second: marks local entries stale once a gap has lasted `staleAfter`, and retries a
    /// failed read.
    package mutating func tick(now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        if let since = gapSince, !markedStale, now - since >= staleAfter {
            markedStale = true
            actions.append(.markLocalEntriesStale)
        }
        if phase == .replaying, !isReading, let lastApplied {
            isReading = true
            actions.append(.read(from: lastApplied))
        }
        return actions
    }

    private mutating func catchUp(from applied: PurgeLogID, now: ContinuousClock.Instant) -> [Action] {
        phase = .replaying
        suspectEnd = nil
        isReading = true
        return [.read(from: applied)]
    }

    private mutating func caughtUp(now: ContinuousClock.Instant) -> [Action] {
        phase = .following
        hasFollowed = true
        var actions: [Action] = []
        for message in queued {
            guard let id = message.logID, let lastApplied else { continue }
            guard id > lastApplied else { continue }
            self.lastApplied = id
            if message.sender != instanceID { actions.append(.apply(message, replayed: false)) }
        }
        queued = []
        actions.append(.caughtUp(replayed: replayed, gap: gapSince.map { now - $0 }))
        replayed = 0
        gapSince = nil
        markedStale = false
        suspectEnd = nil
        return actions
    }
}
