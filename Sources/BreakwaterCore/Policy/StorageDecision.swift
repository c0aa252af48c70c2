// Whether an origin answer goes into the cache, for how long, and under which entity tags.

/// The verdict on one origin response (README "The response cache").
package enum StorageDecision: Sendable, Equatable {
    /// Store for `ttl`, tagged with `tags` (sorted, unique) for purges by entity.
    case store(ttl: Duration, tags: [String])
    case doNotStore(BypassReason)
}
