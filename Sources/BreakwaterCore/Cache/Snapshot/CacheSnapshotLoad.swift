// What loading a cache snapshot found (docs/OPERATING.md, "The cache across restarts"): the start
// log line and `/stats` `snapshot` report it.

/// The outcome of reading a snapshot into the store.
package struct CacheSnapshotLoad: Sendable, Equatable {
    /// The snapshot's header: when it was written and, for a fleet, its purge-log position.
    package var header: CacheSnapshotHeader
    /// Entries stored.
    package var loaded = 0
    /// Their cost, as the store counts it against `cache.max_bytes`.
    package var bytes = 0
    /// Damaged records passed over: a bad checksum, a torn tail, a payload that does not decode
    /// (a damaged stretch with several records in it counts once).
    package var skipped = 0
    /// Entries past their TTL and stale windows by now, not stored.
    package var expired = 0
    /// Entries left out because `cache.max_bytes` (or their shard's part of it) was full.
    package var overBudget = 0
    /// With a fleet, the purges made since the snapshot was written, read from the purge log and
    /// applied to the loaded entries before any was served.
    package var replayed = 0
    /// Why nothing was loaded although the file is a good snapshot (a fleet that cannot replay
    /// the purges made since it was written: no position, no log, Redis not read in time, the log
    /// trimmed past the position, the generation moved); nil when it was loaded.
    package var refusal: String?

    package init(header: CacheSnapshotHeader) {
        self.header = header
    }
}

/// The outcome of writing a snapshot.
package struct CacheSnapshotWrite: Sendable, Equatable {
    /// Entries written.
    package var entries = 0
    /// The file's size.
    package var bytes = 0
    /// Entries left out: per-user, or past every window.
    package var leftOut = 0

    package init() {}
}
