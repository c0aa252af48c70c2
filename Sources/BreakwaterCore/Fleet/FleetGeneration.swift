// The rule for the purge-everything generation (docs/FLEET.md, "No purge lost"): cache keys
// live under `g<N>:`, so the number a fleet shares must never go backwards, or entries of an old
// generation would be read again. The Lua scripts in RedisScripts apply the same rule in Redis.

/// The generation's rule, as pure functions of this proxy's and Redis's numbers.
package enum FleetGeneration {
    /// What a proxy at `own` does on reading `shared` from Redis (nil: the key is missing, as in a
    /// restarted Redis): it moves to the larger, and raises Redis when Redis is behind.
    package static func reconcile(own: UInt64, shared: UInt64?) -> (generation: UInt64, raisesShared: Bool) {
        guard let shared, shared >= own else { return (own, true) }
        return (shared, false)
    }

    /// The generation a hard purge of everything moves the fleet to: past both numbers, so that it
    /// takes effect even when Redis came back behind this proxy.
    package static func afterPurgeOfEverything(own: UInt64, shared: UInt64?) -> UInt64 {
        max(own, shared ?? 0) + 1
    }
}

/// Whether the Redis reached holds the same data as before (docs/FLEET.md, "Registry written
/// back"): a random token set once (`SET NX`) in Redis; a new token, or one this proxy just set,
/// means Redis started empty and this proxy writes its documents back.
package struct RedisDataEpoch: Sendable, Equatable {
    package private(set) var known: String?

    package init() {}

    /// Records the token Redis holds; true when this proxy should write its registry back.
    package mutating func observed(_ token: String, setByThisProxy: Bool) -> Bool {
        defer { known = token }
        if setByThisProxy { return true }
        return known != nil && known != token
    }
}

/// A write-back of the local registry, paced: at most `batchSize` documents per step, so that a
/// restarted Redis is refilled in the background without a burst.
package struct RegistryWriteBack: Sendable, Equatable {
    package let batchSize: Int
    private var remaining: [SHA256Digest]

    package init(_ digests: [SHA256Digest], batchSize: Int) {
        remaining = digests.reversed()
        self.batchSize = max(1, batchSize)
    }

    package var isFinished: Bool { remaining.isEmpty }
    package var remainingCount: Int { remaining.count }

    /// The next documents to write, in the order given.
    package mutating func nextBatch() -> [SHA256Digest] {
        let count = min(batchSize, remaining.count)
        let batch = remaining.suffix(count).reversed()
        remaining.removeLast(count)
        return Array(batch)
    }
}
