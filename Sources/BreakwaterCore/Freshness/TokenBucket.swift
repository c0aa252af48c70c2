// A token bucket on an injected clock: at most `rate` takes per second on average, and never
// more than `capacity` at once.

/// Tokens refilled at `rate` per second up to `capacity`; a take spends one.
package struct TokenBucket: Sendable, Equatable {
    package let rate: Double
    package let capacity: Double
    private var tokens: Double
    private var updated: ContinuousClock.Instant?

    /// A full bucket. `capacity` 1 spaces takes at least 1/`rate` apart.
    package init(rate: Double, capacity: Double = 1) {
        self.rate = max(0, rate)
        self.capacity = max(1, capacity)
        tokens = self.capacity
    }

    /// Spends a token at `now` when one is there.
    package mutating func take(now: ContinuousClock.Instant) -> Bool {
        if let updated {
            let elapsed = StatsReport.seconds(now - updated)
            if elapsed > 0 { tokens = min(capacity, tokens + elapsed * rate) }
        }
        updated = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
