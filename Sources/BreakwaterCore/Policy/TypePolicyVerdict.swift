// `cache.types` applied to the types one answer holds (README "The response cache"): the smallest TTL among
// them and whether any of them is per-user.

/// What the per-type policy says about one answer.
package struct TypePolicyVerdict: Sendable, Equatable {
    /// The smallest `ttl` of the types present that set one; nil when none does.
    package var ttl: Duration?
    /// A type present has `scope: per-user`: the answer may only live in a per-user entry.
    package var isPerUser: Bool

    package static let none = TypePolicyVerdict(ttl: nil, isPerUser: false)

    package init(ttl: Duration?, isPerUser: Bool) {
        self.ttl = ttl
        self.isPerUser = isPerUser
    }

    /// The verdict of `policies` on an answer whose objects name `types`.
    package init(types: Set<String>, policies: [String: Configuration.TypePolicy]) {
        var ttl: Duration?
        var isPerUser = false
        // Configured types are few; the answer's may be many.
        for (name, policy) in policies where types.contains(name) {
            if let typeTTL = policy.ttl { ttl = min(ttl ?? typeTTL, typeTTL) }
            if policy.scope == .perUser { isPerUser = true }
        }
        self.init(ttl: ttl, isPerUser: isPerUser)
    }
}
