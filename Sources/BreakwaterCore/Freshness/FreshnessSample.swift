// What one sampling fetch learned (docs/FRESHNESS.md): for one operation, whether the answer
// had changed by the age at which it was fetched again.

/// One freshness observation: "current status" data, saying only whether the answer changed
/// at some time before `age`, never when.
package struct FreshnessSample: Sendable, Equatable {
    /// The operation name (`operationName`, as recorded in `/stats`).
    package var operationName: String
    /// Time from the stored answer to the sampling fetch's answer.
    package var age: Duration
    /// Whether the body differed from the stored one (digest compared).
    package var changed: Bool
    /// The entry's TTL when it was stored.
    package var ttl: Duration
    /// What that TTL was decided from besides the settings, so that the TTL the running settings
    /// give the operation can be told after a reload (`FreshnessCurrentTTL`); not pooled in a fleet.
    package var ttlBasis: TTLBasis?

    package init(operationName: String, age: Duration, changed: Bool, ttl: Duration, ttlBasis: TTLBasis? = nil) {
        self.operationName = operationName
        self.age = age
        self.changed = changed
        self.ttl = ttl
        self.ttlBasis = ttlBasis
    }
}
