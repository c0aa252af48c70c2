// The fleet's second-level response cache and its fetch leases (docs/FLEET.md), on one event
// loop's Redis connection: local miss -> here -> origin. Every failure reads as a miss, and so
// does an entry whose signature is wrong when `redis.signing_key` is set (docs/FLEET.md).

import BreakwaterCore
import Logging

/// The L2 of one loop; every completion runs on that loop, exactly once.
package final class RedisResponseTier: ResponseTier {
    private let connection: RedisConnection
    private let settings: RedisSettings
    private let keys: RedisKeyLayout
    private let state: RedisFleetState
    /// Signs every entry written and checks every entry read; nil without `redis.signing_key`.
    private let signer: RedisValueSigner?
    private let logger: Logger

    /// How often a proxy waiting for another's fetch looks for the entry.
    static let pollInterval = Duration.milliseconds(20)
    /// The lease term this loop's fetches have shown; touched only on this loop.
    private var leaseTerm: LeaseTerm
    /// Leases this loop took (or may have taken: the SET got no answer) and has not released.
    private var heldLeases: [CacheKey: HeldLease] = [:]
    private var leaseCount = 0

    init(
        connection: RedisConnection, settings: RedisSettings, state: RedisFleetState, signer: RedisValueSigner?,
        logger: Logger
    ) {
        self.state = state
        self.signer = signer
        self.logger = logger
        self.connection = connection
        self.settings = settings
        keys = settings.keys
        leaseTerm = LeaseTerm(redisTimeout: settings.timeout, originTimeout: settings.leaseTimeout)
    }

    private var loopIndex: Int { connection.loop.index }

    /// The entry for `key`, or nil on a miss, a timeout, an undecodable or wrongly signed value, or
    /// Redis down; with the fleet's purge count (nil when Redis did not answer).
    package func lookup(_ key: CacheKey, completion: @escaping (CacheEntry?, FleetPurgeCount?) -> Void) {
        read(key, withLease: false) { [state, loopIndex] entry, seen in
            state.health.record(loop: loopIndex) { entry == nil ? ($0.l2Misses += 1) : ($0.l2Hits += 1) }
            completion(entry, seen?.purges)
        }
    }

    /// Writes `entry` for what remains of its lifetime (TTL and stale windows), with its purge
    /// indexes, unless a purge counted after `purges` reached them (RedisScripts.store); answers
    /// larger than `redis.l2_max_entry_bytes` stay local. Fire and forget.
    package func store(_ entry: CacheEntry, unlessPurgedSince purges: FleetPurgeCount) {
        let remaining = entry.remainingLifetimeMilliseconds(at: wallClockNow())
        guard remaining > 0 else { return }
        let generation = state.generation
        let entryKey = keys.entry(entry.key, generation: generation)
        // Signed over the key it is stored under: moved to another key, it no longer verifies.
        let value = CacheEntryCodec.encode(entry, signedBy: signer, storedUnder: entryKey)
        guard value.count <= settings.l2MaxEntryBytes else { return }
        let sets = keys.indexes(of: entry, generation: generation)
        var arguments: [[UInt8]] = [
            Array("EVAL".utf8), Array(RedisScripts.store.utf8), Array(String(3 + sets.count).utf8), Array(entryKey.utf8),
            Array(keys.purgeCount.utf8), Array(keys.allPurgedAt.utf8),
        ]
        arguments.reserveCapacity(arguments.count + sets.count + 3)
        for set in sets { arguments.append(Array(set.utf8)) }
        arguments.append(value)
        arguments.append(Array(String(remaining).utf8))
        arguments.append(Array(String(purges.value).utf8))
        connection.send(arguments) { _ in }
    }

    /// Tries to take the fleet-wide lease to fetch `key`, whose fetch ends within `ttl` (the
    /// origin's timeout): true when this proxy fetches, also when Redis cannot say (down, slow,
    /// full: each proxy fetches for itself then). The lease lives one `LeaseTerm` and is renewed
    /// while the fetch runs, so that one whose SET timed out here still ends about a fetch later.
    package func acquireLease(_ key: CacheKey, ttl: Duration, completion: @escaping (Bool) -> Void) {
        leaseCount &+= 1
        let value = LeaseValue(
            holder: "\(state.instanceID):\(loopIndex):\(leaseCount)",
            deadlineMilliseconds: wallClockNow().millisecondsSinceEpoch + ttl.wholeMilliseconds)
        let term = leaseTerm.term
        let lease = HeldLease(value: value, takenAt: .now)
        let arguments = ["SET", keys.lease(key), value.encoded, "NX", "PX", String(max(1, term.wholeMilliseconds))]
        connection.send(arguments.map { Array($0.utf8) }) { [weak self] reply in
            guard let self else { return completion(reply != .null) }
            // Taken, or unknown: either way this proxy fetches, and renews and releases the lease
            // in case the SET landed (the scripts touch it only while it holds this value).
            guard reply != .null else { return completion(false) }
            if case .status? = reply {
                lease.confirmedAt = .now
                lease.isConfirmed = true
            }
            self.heldLeases[key] = lease
            self.scheduleRenewal(of: key, lease: lease)
            completion(true)
        }
    }

    /// Gives the lease back (only if this proxy still holds it), so that waiters stop waiting; a
    /// release that gets no answer is sent again while the lease may still live.
    package func releaseLease(_ key: CacheKey) {
        guard let lease = heldLeases.removeValue(forKey: key) else { return }
        lease.isReleased = true
        if lease.isConfirmed { leaseTerm.recordFetch(.now - lease.takenAt) }
        sendRelease(key, lease: lease)
    }

    private func sendRelease(_ key: CacheKey, lease: HeldLease) {
        let arguments = ["EVAL", RedisScripts.releaseLease, "1", keys.lease(key), lease.value.encoded]
        connection.send(arguments.map { Array($0.utf8) }) { [weak self] reply in
            guard let self, reply == nil,
                self.leaseTerm.retriesRelease(sinceConfirmed: .now - lease.confirmedAt)
            else { return }
            self.connection.loop.schedule(after: self.leaseTerm.renewalInterval) { [weak self] in
                self?.sendRelease(key, lease: lease)
            }
        }
    }

    /// Extends the lease to a full term every third of a term until it is released, or until
    /// Redis says another value holds it.
    private func scheduleRenewal(of key: CacheKey, lease: HeldLease) {
        connection.loop.schedule(after: leaseTerm.renewalInterval) { [weak self] in
            // No fetch outlives its deadline: a lease never released is not kept beyond it.
            guard let self, !lease.isReleased,
                wallClockNow().millisecondsSinceEpoch < lease.value.deadlineMilliseconds
            else { return }
            let term = self.leaseTerm.term
            let arguments = [
                "EVAL", RedisScripts.renewLease, "1", self.keys.lease(key), lease.value.encoded,
                String(max(1, term.wholeMilliseconds)),
            ]
            self.connection.send(arguments.map { Array($0.utf8) }) { [weak self] reply in
                guard let self, !lease.isReleased else { return }
                switch reply {
                case .integer(1)?:
                    lease.confirmedAt = .now
                    lease.isConfirmed = true
                case nil:
                    break  // no answer: try again next time, the lease may still be there
                default:
                    return  // another proxy's lease now, or none: nothing of ours to keep
                }
                self.scheduleRenewal(of: key, lease: lease)
            }
        }
    }

    /// Waits up to `timeout` for the lease holder to store `key`, polling; nil as soon as the
    /// lease is gone without an entry (the holder's answer was not cacheable, or it failed), or
    /// when the holder's fetch must be over. The wait is counted in `/stats` `redis`.
    package func awaitEntry(_ key: CacheKey, timeout: Duration, completion: @escaping (CacheEntry?) -> Void) {
        let started = ContinuousClock.now
        let wait = RedisWait(deadline: started + timeout) { [state, loopIndex] entry in
            state.health.record(loop: loopIndex) {
                $0.leaseWaits += 1
                $0.leaseWaitTime += .now - started
            }
            completion(entry)
        }
        connection.loop.schedule(after: timeout) { wait.finish(nil) }
        poll(key, wait: wait)
    }

    private func poll(_ key: CacheKey, wait: RedisWait) {
        guard !wait.isFinished else { return }
        read(key, withLease: true) { [weak self] entry, seen in
            guard let self, !wait.isFinished else { return }
            let lease = seen?.lease
            if let entry {
                self.state.health.record(loop: self.loopIndex) { $0.l2Hits += 1 }
                return wait.finish(entry)
            }
            // The holder may release its lease just before it stores the entry: one more look
            // before giving up.
            if case .absent? = lease {
                if wait.sawLeaseGone { return wait.finish(nil) }
                wait.sawLeaseGone = true
            }
            // No wait outlasts the holder's fetch.
            if case .held(let value?)? = lease {
                let left = Duration.milliseconds(value.deadlineMilliseconds - wallClockNow().millisecondsSinceEpoch)
                if self.leaseTerm.waitLimit(holderDeadlineIn: left) == .zero { return wait.finish(nil) }
            }
            guard ContinuousClock.now + Self.pollInterval < wait.deadline else { return }
            self.connection.loop.schedule(after: Self.pollInterval) { self.poll(key, wait: wait) }
        }
    }

    /// What a poll saw of the lease: gone, or held (with its value, when it is one this version reads).
    private enum LeaseSeen {
        case absent
        case held(LeaseValue?)
    }

    /// What a read saw besides the entry: the fleet's purge count and, when asked, the lease.
    private struct Seen {
        let purges: FleetPurgeCount
        let lease: LeaseSeen?
    }

    /// One round trip: the entry, its soft-purge mark, the generation's soft purge-all mark, the
    /// fleet's purge count and, when asked, the lease (nil when Redis did not answer).
    private func read(_ key: CacheKey, withLease: Bool, completion: @escaping (CacheEntry?, Seen?) -> Void) {
        let entryKey = keys.entry(key, generation: state.generation)
        var names = [
            entryKey, keys.softMark(ofEntry: entryKey), keys.softAll(generation: state.generation), keys.purgeCount,
        ]
        if withLease { names.append(keys.lease(key)) }
        connection.send([Array("MGET".utf8)] + names.map { Array($0.utf8) }) {
            [state, loopIndex, signer, logger] reply in
            guard case .array(let values)? = reply, values.count == names.count else { return completion(nil, nil) }
            // No count yet: no purge was ever applied.
            let purges = FleetPurgeCount(values[3].bytes.flatMap { UInt64(String(decoding: $0, as: UTF8.self)) } ?? 0)
            let seen = Seen(
                purges: purges, lease: withLease ? (values[4].bytes.map { .held(LeaseValue($0)) } ?? .absent) : nil)
            guard let bytes = values[0].bytes else { return completion(nil, seen) }
            do throws(CacheEntryCodecError) {
                var entry = try CacheEntryCodec.decode(
                    bytes, signedBy: signer, storedUnder: entryKey, now: .now, wallNow: wallClockNow())
                guard entry.key == key else { throw CacheEntryCodecError.malformed("another key") }
                entry = Self.applyingSoftPurges(to: entry, mark: values[1].bytes, markForAll: values[2].bytes)
                // Purged here, and Redis may not have applied it yet: a miss, or stale from the purge.
                switch state.pendingPurgeVerdict(on: entry) {
                case .hidden?: return completion(nil, seen)
                case .staleFrom(let madeAt)?:
                    let mark = Array(String(madeAt.millisecondsSinceEpoch).utf8)
                    entry = Self.applyingSoftPurges(to: entry, mark: mark, markForAll: nil)
                case nil: break
                }
                completion(entry, seen)
            } catch .signatureMismatch {
                state.health.recordRejected(loop: loopIndex, redisKey: entryKey, logger: logger)
                completion(nil, seen)
            } catch {
                state.health.record(loop: loopIndex) { $0.errors += 1 }
                completion(nil, seen)
            }
        }
    }

    /// The entry made stale from the earliest soft purge that reached it (`CacheEntry.softPurged`),
    /// from the marks Redis holds: each a wall-clock instant in decimal milliseconds.
    static func applyingSoftPurges(to entry: CacheEntry, mark: [UInt8]?, markForAll: [UInt8]?) -> CacheEntry {
        let marks = [mark, markForAll].compactMap {
            $0.flatMap { Int64(String(decoding: $0, as: UTF8.self)).map(WallClockTime.init(millisecondsSinceEpoch:)) }
        }
        return entry.softPurged(markedAt: marks)
    }
}

/// One proxy waiting for another's entry: completes once, by entry, by lease gone, or by deadline.
final class RedisWait {
    let deadline: ContinuousClock.Instant
    /// A poll already found the lease gone without an entry.
    var sawLeaseGone = false
    private var completion: OneShotCompletion<CacheEntry?>

    init(deadline: ContinuousClock.Instant, completion: @escaping (CacheEntry?) -> Void) {
        self.deadline = deadline
        self.completion = OneShotCompletion(completion)
    }

    var isFinished: Bool { completion.isFinished }

    func finish(_ entry: CacheEntry?) { completion.finish(entry) }
}

/// A lease this loop took: its value, and when Redis last confirmed it (taken or renewed).
final class HeldLease {
    let value: LeaseValue
    let takenAt: ContinuousClock.Instant
    var confirmedAt: ContinuousClock.Instant
    /// Redis answered the SET or a renewal: the lease is known to be this proxy's.
    var isConfirmed = false
    var isReleased = false

    init(value: LeaseValue, takenAt: ContinuousClock.Instant) {
        self.value = value
        self.takenAt = takenAt
        confirmedAt = takenAt
    }
}
