// Whether an origin answer goes into the cache, for how long, and under which entity tags.

/// The verdict on one origin response (README "The response cache").
package enum StorageDecision: Sendable, Equatable {
    /// Store for `ttl`, tagged with `tags` (sorted, unique) for purges by entity; `basis` is what
    /// the TTL was decided from besides the settings, kept with the entry.
    case store(ttl: Duration, tags: [String], basis: TTLBasis)
    case doNotStore(BypassReason)
}
