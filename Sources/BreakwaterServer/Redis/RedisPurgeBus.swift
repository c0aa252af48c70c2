// Purges across the fleet (docs/FLEET.md, "What is shared" and "No purge lost"). A purge applied here
// waits in the outbox until one Lua script has applied it to the L2 (index sets, or a new
// generation for everything), appended it to the purge log and announced it on the channel; it is
// retried until Redis confirms. The other proxies' purges arrive on the channel, and after any
// gap in the subscription are read back from the log (PurgeLogFollower decides; this performs).

import BreakwaterCore
import Logging
import Synchronization

/// The fleet's purge channel and log for this process; thread-safe.
package final class RedisPurgeBus: PurgeBus, @unchecked Sendable {
    private let settings: RedisSettings
    private let state: RedisFleetState
    /// Loop 0's command connection: purges are rare and belong to no loop. Everything below that
    /// is not locked is touched on loop 0 only.
    private let connection: RedisConnection
    private let logger: Logger
    private let handler = LockedCallback<@Sendable (PurgeRequest) -> Void>()
    private let localEntries = LockedCallback<@Sendable () -> Int>()
    /// Nil when `redis.purge_log` is 0: purges then travel on the channel only.
    private var follower: PurgeLogFollower?
    /// The follower's last applied log entry, readable from any thread (the cache snapshot's header).
    private let appliedPosition = Mutex<PurgeLogID?>(nil)
    /// A script for the outbox's first purge is in flight.
    private var isSending = false
    private var retryScheduled = false

    /// How long a purge script may take before it is retried (a retry is applied once in Redis).
    private static let purgeDeadline = Duration.seconds(2)
    /// How long a purge's done mark stays in Redis: retries come well within it. Its count stays
    /// on what it reached as long, longer than any fetch that began before it lasts.
    private static let doneMarkLifetime = Duration.seconds(600)
    /// Between two tries of a purge Redis did not confirm.
    private static let retryInterval = Duration.milliseconds(250)

    init(settings: RedisSettings, state: RedisFleetState, connection: RedisConnection, logger: Logger) {
        self.settings = settings
        self.state = state
        self.connection = connection
        self.logger = logger
        if settings.purgeLogLength > 0 { follower = PurgeLogFollower(instanceID: state.instanceID) }
    }

    private var loopIndex: Int { connection.loop.index }
    /// The loop the bus runs on (loop 0).
    var loop: EventLoop { connection.loop }

    /// The last purge-log entry applied here; nil without a log or before the log was reached.
    package var purgeLogPosition: PurgeLogID? { appliedPosition.withLock { $0 } }

    /// Goes on from `position`, the last purge-log entry the cache snapshot's catch-up read at
    /// start, with the snapshot's `generation` (before the loops run): the first subscription
    /// reads the log from there, so purges made since the catch-up are applied as after any gap.
    /// False when there is no log (`redis.purge_log` 0).
    package func resume(from position: PurgeLogID, generation: UInt64) -> Bool {
        guard follower != nil else { return false }
        state.advanceGeneration(to: generation)
        perform { follower in
            follower.resume(from: position, generation: generation, now: .now)
            return []
        }
        return true
    }

    /// Calls `handler` with each purge another proxy announced (on loop 0's thread).
    package func setRemotePurgeHandler(_ handler: @escaping @Sendable (PurgeRequest) -> Void) {
        self.handler.set(handler)
    }

    /// Tells the bus how many entries the local cache holds (whether a drop would drop anything).
    package func setLocalEntryCount(_ count: @escaping @Sendable () -> Int) {
        localEntries.set(count)
    }

    /// Queues `purge` (already applied locally) for Redis and the fleet; from any thread. Until
    /// Redis confirms it, it is retried and hides the L2 entries it reaches from this proxy.
    package func publish(_ purge: PurgeRequest) {
        let madeAt = wallClockNow()
        state.updateOutbox { $0.add(purge, at: madeAt) }
        let bound = LoopBound(self)
        connection.loop.execute { bound.value.sendNext() }
    }

    // MARK: - Own purges

    /// Sends the outbox's first purge, unless one is in flight.
    private func sendNext() {
        guard !isSending, let pending = state.outbox.withLock({ $0.first }) else { return }
        isSending = true
        connection.send(arguments(for: pending), deadline: max(settings.timeout, Self.purgeDeadline)) {
            [self] reply in
            isSending = false
            switch reply {
            case .integer(let generation)?:
                state.advanceGeneration(to: UInt64(max(0, generation)))
                state.updateOutbox { $0.confirm(pending.sequence, now: .now) }
                state.health.record(loop: loopIndex) { $0.purgesPublished += 1 }
                sendNext()
            case .error?:
                // Full (OOM) or refusing scripts: the proxies connected still hear of it; the L2
                // and the log get it on a later try.
                if !pending.isAnnounced {
                    announceWithoutLog(pending.purge)
                    state.updateOutbox { $0.markAnnounced(pending.sequence) }
                }
                retryLater(after: Self.retryInterval * 4)
            default:
                retryLater(after: Self.retryInterval)
            }
        }
    }

    private func retryLater(after delay: Duration) {
        guard !retryScheduled else { return }
        retryScheduled = true
        connection.loop.schedule(after: delay) { [self] in
            retryScheduled = false
            sendNext()
        }
    }

    /// The purge script's keys and arguments for `pending` (RedisScripts.purge).
    private func arguments(for pending: PurgeOutbox.Pending) -> [[UInt8]] {
        let keys = settings.keys
        let generation = state.generation
        let purge = pending.purge
        let mode: String
        let target: String
        if let index = keys.index(purge.selector, generation: generation) {
            (mode, target) = (purge.soft ? "soft" : "hard", index)
        } else if purge.soft {
            (mode, target) = ("softall", keys.softAll(generation: generation))
        } else {
            (mode, target) = ("all", keys.generation)
        }
        let line = PurgeMessage(sender: state.instanceID, purge: purge, generation: generation).encoded
        // "v1 <sender> <soft> <generation> <kind> <argument>": the script puts in its own generation.
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: false)
        let strings: [String] = [
            "EVAL", RedisScripts.purge, "6",
            keys.purgeDone(sender: state.instanceID, sequence: pending.sequence), keys.generation, keys.purgeLog,
            target, keys.purgeCount, keys.allPurgedAt,
            mode, String(generation), String(pending.madeAt.millisecondsSinceEpoch), state.instanceID,
            purge.soft ? "1" : "0",
        ]
        var arguments = strings.map { Array($0.utf8) }
        arguments.append(Array(parts[4]))
        arguments.append(Array(parts[5]))
        for tail in [
            String(settings.purgeLogLength), keys.purgeChannel, String(Self.doneMarkLifetime.wholeMilliseconds),
        ] {
            arguments.append(Array(tail.utf8))
        }
        return arguments
    }

    /// Announces `purge` on the channel only (no log id): used when Redis refuses the script.
    private func announceWithoutLog(_ purge: PurgeRequest) {
        let message = PurgeMessage(sender: state.instanceID, purge: purge, generation: state.generation)
        connection.send([Array("PUBLISH".utf8), Array(settings.keys.purgeChannel.utf8), message.encoded]) { _ in }
    }

    // MARK: - Other proxies' purges

    /// A message from the purge channel (on the subscriber's loop, loop 0).
    func received(_ payload: [UInt8]) {
        guard let message = PurgeMessage(payload) else { return }
        state.advanceGeneration(to: message.generation)
        if message.sender != state.instanceID {
            state.health.record(loop: loopIndex) { $0.remotePurges += 1 }
        }
        guard follower != nil else {
            if message.sender != state.instanceID { apply(message.purge, replayed: false) }
            return
        }
        perform { $0.received(message, now: .now) }
    }

    /// The subscriber subscribed (loop 0).
    func subscribed() {
        perform { $0.subscribed(now: .now) }
    }

    /// The subscriber lost its connection (loop 0).
    func subscriptionLost() {
        perform { $0.subscriptionLost(now: .now) }
    }

    /// The check's outcome (loop 0): the log's last id, or nil when Redis did not answer.
    func checked(logEnd: PurgeLogID?, answered: Bool) {
        guard follower != nil else { return }
        perform { follower in
            state.updateOutbox { $0.prune(now: .now) }
            var actions = follower.tick(now: .now)
            if answered {
                let isEmpty = (localEntries.current?() ?? 0) == 0
                actions += follower.checked(logEnd: logEnd, localCacheIsEmpty: isEmpty, now: .now)
            } else {
                actions += follower.checkFailed(now: .now)
            }
            return actions
        }
        sendNext()
    }

    /// Lets the follower decide on `event`, then carries out its actions.
    private func perform(_ event: (inout PurgeLogFollower) -> [PurgeLogFollower.Action]) {
        guard var follower else { return }
        let actions = event(&follower)
        self.follower = follower
        appliedPosition.withLock { $0 = follower.lastApplied }
        for action in actions { carryOut(action) }
    }

    private func carryOut(_ action: PurgeLogFollower.Action) {
        switch action {
        case .apply(let message, let replayed):
            state.advanceGeneration(to: message.generation)
            apply(message.purge, replayed: replayed)
        case .read(let from):
            readLog(from: from)
        case .check:
            check()
        case .markLocalEntriesStale:
            logger.warning(
                Logger.Message(
                    stringLiteral: "redis purge log: purges may have been missed (no subscription, or Redis not "
                        + "answering); local entries are served STALE until refreshed"))
            handler.current?(PurgeRequest(selector: .all, soft: true))
        case .dropLocalCache(let reason):
            logger.warning(
                "redis purge log: dropping the whole local cache: purges may have been missed",
                metadata: ["redis.reason": "\(reason)"])
            state.health.record(loop: loopIndex) { $0.cacheDrops += 1 }
            handler.current?(PurgeRequest(selector: .all, soft: false))
            if let applied = reason.missingApplied { leaveTheTierBehindIfPurgesWereLost(applied) }
        case .warnMissed(let applied, let logEnd):
            logger.warning(
                "redis purge log: purges in the log did not arrive on the channel; replaying them",
                metadata: ["redis.applied": "\(applied)", "redis.log_end": "\(logEnd)"])
        case .caughtUp(let replayed, let gap):
            guard let gap, replayed > 0 || gap >= .milliseconds(100) else { return }
            logger.notice(
                "redis purge log: caught up after a gap",
                metadata: ["redis.replayed": "\(replayed)", "redis.gap_ms": "\(gap.wholeMilliseconds)"])
        }
    }

    /// The log no longer holds `applied`, the last purge applied here: when it holds an older
    /// entry, Redis lost purges (a failover to a replica that had not received them, a Redis
    /// restored from an older copy) and their deletions of fleet-tier entries, which the next
    /// local miss would read back as fresh. A purge of everything then moves the fleet to a new
    /// generation, where none of them is. A trimmed log, or one Redis began anew after starting
    /// empty, holds nothing older: what the L2 holds was purged as it should be.
    private func leaveTheTierBehindIfPurgesWereLost(_ applied: PurgeLogID) {
        let arguments = ["XREVRANGE", settings.keys.purgeLog, applied.description, "-", "COUNT", "1"]
        connection.send(arguments.map { Array($0.utf8) }, deadline: max(settings.timeout, .seconds(1))) {
            [self] reply in
            guard case .array(let older)? = reply, !older.isEmpty else { return }
            logger.warning(
                "redis purge log: Redis lost purges applied here; leaving the fleet tier's entries behind",
                metadata: ["redis.applied": "\(applied)"])
            publish(PurgeRequest(selector: .all, soft: false))
        }
    }

    private func apply(_ purge: PurgeRequest, replayed: Bool) {
        state.health.record(loop: loopIndex) {
            $0.purgesApplied += 1
            if replayed { $0.purgesReplayed += 1 }
        }
        handler.current?(purge)
    }

    /// Reads a page of the log from `id`, inclusive.
    private func readLog(from id: PurgeLogID) {
        let page = follower?.pageSize ?? 500
        let arguments = ["XRANGE", settings.keys.purgeLog, id.description, "+", "COUNT", String(page)]
        connection.send(arguments.map { Array($0.utf8) }, deadline: max(settings.timeout, .seconds(1))) {
            [self] reply in
            guard case .array(let items)? = reply else { return perform { $0.readFailed(now: .now) } }
            let entries = items.compactMap(Self.logEntry)
            for entry in entries { if let message = entry.message { state.advanceGeneration(to: message.generation) } }
            perform { $0.read(entries, now: .now) }
        }
    }

    /// One `XRANGE` item: `[id, [field, value, ...]]`, the purge in field `m` (also read by the
    /// cache snapshot's catch-up at start).
    static func logEntry(_ item: RedisReply) -> PurgeLogEntry? {
        guard case .array(let parts) = item, parts.count == 2, let idBytes = parts[0].bytes,
            let id = PurgeLogID(String(decoding: idBytes, as: UTF8.self)), case .array(let fields) = parts[1]
        else { return nil }
        var message: PurgeMessage?
        var index = 0
        while index + 1 < fields.count {
            if fields[index].bytes == Array("m".utf8), let bytes = fields[index + 1].bytes {
                message = PurgeMessage(bytes)
            }
            index += 2
        }
        return PurgeLogEntry(id: id, message: message)
    }

    // MARK: - The check

    /// What the once-a-second check found besides the log's end.
    var onCheck: ((_ epoch: String, _ setHere: Bool) -> Void)?

    /// Raises a generation behind this proxy's, learns a newer one, sees whether Redis started
    /// empty (the data epoch) and where the log ends (loop 0).
    func check() {
        let keys = settings.keys
        let token = state.instanceID + "-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let arguments = [
            "EVAL", RedisScripts.check, "3", keys.generation, keys.dataEpoch, keys.purgeLog, String(state.generation),
            token, String(settings.purgeLogLength),
        ]
        connection.send(arguments.map { Array($0.utf8) }) { [self] reply in
            guard case .array(let values)? = reply, values.count == 4, case .integer(let generation) = values[0],
                let epoch = values[1].bytes, case .integer(let setHere) = values[2]
            else { return checked(logEnd: nil, answered: false) }
            state.advanceGeneration(to: UInt64(max(0, generation)))
            perform { $0.generationSeen(UInt64(max(0, generation))) }
            onCheck?(String(decoding: epoch, as: UTF8.self), setHere == 1)
            let logEnd = values[3].bytes.flatMap { PurgeLogID(String(decoding: $0, as: UTF8.self)) }
            checked(logEnd: logEnd, answered: true)
        }
    }
}
