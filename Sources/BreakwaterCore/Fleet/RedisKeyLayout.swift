// The names of everything the fleet tier keeps in Redis (docs/FLEET.md lists them): one place,
// so that every proxy of a fleet, whatever its version, reads and writes the same keys.

/// Key and channel names under one `redis.key_prefix`.
///
/// Cache entries and their purge indexes live under a generation (`<prefix>g<N>:`): a purge of
/// everything increments `<prefix>gen`, and every older key becomes unreachable at once and
/// expires on its own, without a scan. Documents and leases are not cache entries and keep no
/// generation.
package struct RedisKeyLayout: Sendable, Equatable {
    package let prefix: String

    package init(prefix: String) { self.prefix = prefix }

    /// The counter a purge of everything increments.
    package var generation: String { prefix + "gen" }
    /// The pub/sub channel purges travel on.
    package var purgeChannel: String { prefix + "purge" }
    /// How many purges the fleet has applied in Redis (`FleetPurgeCount`).
    package var purgeCount: String { prefix + "purges:n" }
    /// The purge count of the last purge of everything (hard or soft), for a while after it.
    package var allPurgedAt: String { prefix + "purges:all" }
    /// The purge log, a stream every purge is appended to (`redis.purge_log` entries).
    package var purgeLog: String { prefix + "purges" }
    /// A random token set once per Redis lifetime: a new one means Redis started empty.
    package var dataEpoch: String { prefix + "epoch" }
    /// Marks purge `sequence` of proxy `sender` as applied, so that a retry applies it once.
    package func purgeDone(sender: String, sequence: UInt64) -> String { prefix + "purged:\(sender):\(sequence)" }
    /// A registered document's text, by its SHA-256.
    package func document(_ hash: SHA256Digest) -> String { prefix + "doc:" + hash.hex }
    /// The origin's last good introspected schema (the introspection answer), for the fleet.
    package var schema: String { prefix + "schema" }
    /// The set of operations seen answering a per-user type, and its change counter.
    package var perUserOperations: String { prefix + "peruser" }
    package var perUserOperationsVersion: String { prefix + "peruser:n" }
    /// The fleet's freshness samples of one operation, a list of the latest (docs/FRESHNESS.md).
    package func freshnessSamples(_ operation: String) -> String { prefix + "fresh:s:" + operation }
    /// Hashes of all-time sample counts and of changed-sample counts, by operation.
    package var freshnessCounts: String { prefix + "fresh:n" }
    package var freshnessChanges: String { prefix + "fresh:c" }
    /// The lease one proxy holds while it fetches a key from the origin for the fleet.
    package func lease(_ key: CacheKey) -> String { prefix + "lease:" + key.digest.hex }

    /// An encoded cache entry (CacheEntryCodec).
    package func entry(_ key: CacheKey, generation: UInt64) -> String {
        cachePrefix(generation) + "e:" + key.digest.hex
    }
    /// A soft purge's mark on one entry: the wall-clock ms from which it is stale.
    package func softMark(ofEntry entryKey: String) -> String { entryKey + ":soft" }
    /// A soft purge of everything: entries stored before this wall-clock ms are stale.
    package func softAll(generation: UInt64) -> String { cachePrefix(generation) + "softall" }

    /// The purge count of the last purge of an index set, for a while after it.
    package func purgedAt(index: String) -> String { index + ":at" }

    /// The set of entry keys a purge by `selector` reaches; nil for `.all` (a generation bump).
    package func index(_ selector: PurgeSelector, generation: UInt64) -> String? {
        switch selector {
        case .all: nil
        case .operation(let name): cachePrefix(generation) + "o:" + name
        case .document(let digest): cachePrefix(generation) + "h:" + digest.hex
        case .tag(let tag): cachePrefix(generation) + "t:" + tag
        }
    }

    /// Every index set `entry` belongs to: its operation, its document and each of its tags.
    package func indexes(of entry: CacheEntry, generation: UInt64) -> [String] {
        var sets: [String] = []
        sets.reserveCapacity(entry.tags.count + 2)
        if let name = entry.operationName, let set = index(.operation(name), generation: generation) { sets.append(set) }
        if let set = index(.document(entry.documentDigest), generation: generation) { sets.append(set) }
        for tag in entry.tags {
            if let set = index(.tag(tag), generation: generation) { sets.append(set) }
        }
        return sets
    }

    private func cachePrefix(_ generation: UInt64) -> String { prefix + "g\(generation):" }
}
