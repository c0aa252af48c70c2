// The TTL the running settings give an answer stored earlier (docs/OPERATING.md, "Signals"): a
// reload that lowers a rule's TTL, `default_ttl` or a `cache.types` TTL cuts the entries stored
// before it to what they would have got under the new settings; a raised TTL lengthens none.

extension CachePolicy {
    /// The TTL these settings give an answer of `operationName` whose TTL was decided from
    /// `basis`: what `storage(of:)` would decide for it now.
    ///
    /// Without a basis (an entry read from the fleet tier or a cache snapshot, which keep none),
    /// an upper bound from what is known: the rule's TTL, `default_ttl` when the origin's
    /// lifetime is not honoured, and the `cache.types` TTLs of the types its tags name (`Type`);
    /// nil when none of these bounds it (the origin's lifetime may have decided it).
    package func ttl(operationName: String?, basis: TTLBasis?, tags: [String]) -> Duration? {
        var ttl: Duration?
        if let basis {
            ttl = timeToLive(operationName: operationName, originTTL: basis.originTTL)
        } else if let rule = rule(for: operationName) {
            ttl = rule.ttl
        } else if !settings.honorOriginCacheControl {
            ttl = settings.defaultTTL
        }
        guard !settings.types.isEmpty else { return ttl }
        let types = basis?.types ?? tags.filter { EntityTags.isEntityTag($0) && !$0.contains(":") }
        if let typeTTL = TypePolicyVerdict(types: Set(types), policies: settings.types).ttl {
            ttl = min(ttl ?? typeTTL, typeTTL)
        }
        return ttl
    }

    /// The TTL `entry` is cut to under these settings: the one they give it now
    /// (`ttl(operationName:basis:tags:)`) when shorter than the one it was stored with; nil when
    /// it keeps its own.
    package func loweredTTL(of entry: CacheEntry) -> Duration? {
        guard let ttl = ttl(operationName: entry.operationName, basis: entry.ttlBasis, tags: entry.tags),
            ttl < entry.ttl
        else { return nil }
        return max(.zero, ttl)
    }
}
