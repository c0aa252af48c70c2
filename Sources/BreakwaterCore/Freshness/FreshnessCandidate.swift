// An entry offered for freshness sampling: what the sampling fetch compares against, and what
// the server needs to make that fetch (`Payload`, opaque to the core).

/// A stored public entry that may be sampled.
package struct FreshnessCandidate<Payload> {
    package var key: CacheKey
    package var operationName: String
    /// The stored answer's strong entity tag (a digest of its body).
    package var etag: String
    package var storedAt: ContinuousClock.Instant
    /// The entry's lifetime: the sample is taken at a random age below it.
    package var ttl: Duration
    /// What the entry's TTL was decided from besides the settings (`CacheEntry.ttlBasis`).
    package var ttlBasis: TTLBasis?
    /// What the server needs to fetch the answer again (its fetch plan).
    package var payload: Payload
    /// The memory `payload` holds, in bytes: what the schedule counts against its bound.
    package var heldBytes: Int

    package init(
        key: CacheKey, operationName: String, etag: String, storedAt: ContinuousClock.Instant, ttl: Duration,
        ttlBasis: TTLBasis? = nil, payload: Payload, heldBytes: Int
    ) {
        self.key = key
        self.operationName = operationName
        self.etag = etag
        self.storedAt = storedAt
        self.ttl = ttl
        self.ttlBasis = ttlBasis
        self.payload = payload
        self.heldBytes = heldBytes
    }

    /// The sample this candidate yields when fetched again, answered with `etag` at `answeredAt`.
    package func sample(answeredWith etag: String, at answeredAt: ContinuousClock.Instant) -> FreshnessSample {
        FreshnessSample(
            operationName: operationName, age: max(.zero, answeredAt - storedAt), changed: etag != self.etag, ttl: ttl,
            ttlBasis: ttlBasis)
    }
}

extension FreshnessCandidate: Sendable where Payload: Sendable {}
