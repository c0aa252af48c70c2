// The cache across restarts (`cache.snapshot`, docs/OPERATING.md "The cache across restarts"):
// which entries are written at stop, in which order, and which come back at start. The file's
// layout is CacheSnapshotHeader's and CacheSnapshotRecord's; the file operations are
// CacheSnapshotFile's. Time is a parameter: tests run on a manual clock.

/// Writes the shared entries of a store to a snapshot file and loads them back.
package enum CacheSnapshot {
    /// The entries a snapshot holds, most recently used first: shared ones (never per-user) that
    /// can still serve somebody at `now`, with a soft purge's mark folded into their TTL so that a
    /// restart does not make them fresh again.
    package static func entriesToWrite(
        _ stored: [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)],
        now: ContinuousClock.Instant, wallNow: WallClockTime
    ) -> [CacheEntry] {
        stored.compactMap { entry, staleSince in
            guard !entry.isPerUser, now < entry.removableAt(staleSince: staleSince) else { return nil }
            guard let staleSince else { return entry }
            let mark = wallNow.millisecondsSinceEpoch - (now - staleSince).wholeMilliseconds
            return entry.softPurged(markedAt: [WallClockTime(millisecondsSinceEpoch: mark)])
        }
    }

    /// Writes `store`'s shared entries to `path` (replacing it whole) under `header`; refuses,
    /// and leaves the file alone, when what is at `path` is not a snapshot of this layout. Safe
    /// while the loops serve: each shard is read under its own lock, the file written without any.
    package static func write(
        _ store: ResponseStore, to path: String, header: CacheSnapshotHeader,
        now: ContinuousClock.Instant, wallNow: WallClockTime
    ) throws(CacheSnapshotError) -> CacheSnapshotWrite {
        if let kind = try CacheSnapshotFile.kind(at: path), kind != .snapshot, kind != .empty {
            throw .notASnapshot(path, kind: kind)
        }
        let stored = store.entriesByRecency()
        let entries = entriesToWrite(stored, now: now, wallNow: wallNow)
        var result = CacheSnapshotWrite()
        result.entries = entries.count
        result.leftOut = stored.count - entries.count
        result.bytes = try CacheSnapshotFile.replace(path) { (writer) throws(CacheSnapshotError) in
            try writer.append { $0.append(contentsOf: header.encoded) }
            for entry in entries {
                try writer.append { CacheSnapshotRecord.append(CacheEntryCodec.encode(entry), to: &$0) }
            }
        }
        return result
    }

    /// Why a snapshot with `header` may not be loaded by a proxy of a fleet, nil when it may:
    /// purges made by the fleet while this proxy was down must be replayed before it serves, and
    /// that takes the purge log (`redis.purge_log` above 0) and the position the snapshot was
    /// written at (docs/FLEET.md).
    package static func fleetRefusal(_ header: CacheSnapshotHeader, purgeLogKept: Bool) -> String? {
        guard purgeLogKept else {
            return "redis.purge_log is 0: the purges made while this proxy was down cannot be replayed"
        }
        guard header.purgeLogPosition != nil else {
            return "the snapshot holds no purge-log position (written without the fleet, or before the log was "
                + "reached): the purges made since cannot be replayed"
        }
        return nil
    }

    /// Reads the snapshot at `path` into `store`, most recently used first, until `maxBytes` (the
    /// store's bound) is reached; nil when there is no file. Ages continue from the stored
    /// wall-clock times (`wallNow` against the time each entry was stored); an entry past its
    /// TTL and stale windows is not stored; a damaged record is skipped and counted, the reading
    /// resuming at the next intact one. `refuse` sees the header first: a reason it returns
    /// loads nothing. A file that is not a snapshot throws `notASnapshot`.
    ///
    /// A snapshot is read once: the file is removed once its header is read, so that a process
    /// that dies without writing a new one (a crash, SIGKILL) starts empty next time rather than
    /// with entries purged since this snapshot was written.
    package static func load(
        from path: String, into store: ResponseStore, now: ContinuousClock.Instant, wallNow: WallClockTime,
        tagHeader: TagHeader? = nil, refuse: (CacheSnapshotHeader) -> String? = { _ in nil }
    ) throws(CacheSnapshotError) -> CacheSnapshotLoad? {
        guard var reader = try CacheSnapshotFile.Reader(path: path) else { return nil }
        _ = try reader.ensure(CacheSnapshotHeader.size)
        let kind = reader.withAvailable { CacheSnapshotHeader.kind(of: $0.prefix(CacheSnapshotHeader.size)) }
        switch kind {
        case .foreign, .unknownVersion: throw .notASnapshot(path, kind: kind)
        case .empty, .snapshot: break
        }
        guard let header = reader.withAvailable({ CacheSnapshotHeader(decoding: $0.prefix(CacheSnapshotHeader.size)) })
        else { throw .damagedHeader(path) }
        reader.advance(CacheSnapshotHeader.size)
        // The open descriptor keeps the bytes readable.
        CacheSnapshotFile.remove(path)
        var result = CacheSnapshotLoad(header: header)
        if let refusal = refuse(header) {
            result.refusal = refusal
            return result
        }
        // An entry larger than the whole store could not be stored: a longer length is damage.
        let maxPayload = min(Int(UInt32.max), store.maxBytes + 64 << 10)
        var entries: [CacheEntry] = []
        var cost = 0
        var inDamage = false
        var full = false
        while try reader.ensure(CacheSnapshotRecord.overhead) {
            var framing = reader.withAvailable { CacheSnapshotRecord.frame($0, maxPayload: maxPayload) }
            if case .needs(let total) = framing {
                _ = try reader.ensure(total)
                framing = reader.withAvailable { CacheSnapshotRecord.frame($0, maxPayload: maxPayload) }
            }
            guard case .record(let length) = framing else {
                // Damage, or a tail torn inside a record: look for the next intact record.
                inDamage = true
                reader.advance(1)
                continue
            }
            if inDamage {
                result.skipped += 1
                inDamage = false
            }
            let payload = reader.copy(from: CacheSnapshotRecord.overhead, count: length)
            reader.advance(CacheSnapshotRecord.overhead + length)
            guard let entry = try? CacheEntryCodec.decode(payload, now: now, wallNow: wallNow), !entry.isPerUser else {
                result.skipped += 1
                continue
            }
            guard entry.remainingLifetimeMilliseconds(at: wallNow) > 0 else {
                result.expired += 1
                continue
            }
            guard cost + entry.cost <= store.maxBytes else {
                // Full: the rest is less recently used than what is kept.
                result.overBudget += 1
                full = true
                break
            }
            cost += entry.cost
            entries.append(entry.withTagHeader(tagHeader))
        }
        if !full, inDamage || reader.available > 0 { result.skipped += 1 }
        let restored = store.restore(entries)
        result.loaded = restored.stored
        result.bytes = restored.bytes
        result.overBudget += entries.count - restored.stored
        return result
    }
}
