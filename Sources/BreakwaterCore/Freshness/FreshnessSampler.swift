// The sampling decisions of docs/FRESHNESS.md as a value: which stored entries are sampled,
// when (a random age within the entry's lifetime), and the bounds (the per-proxy fetch rate,
// one sampling fetch at a time per key, never a per-user entry). The server offers entries as
// it stores them, asks for the due samples on a timer, performs the fetches, and reports back.

/// Schedules freshness samples; clock and randomness are passed in.
package struct FreshnessSampler<Payload> {
    /// What happened to an offered entry.
    package enum Offer: Equatable {
        /// Scheduled at this instant.
        case scheduled(ContinuousClock.Instant)
        /// Not among the sampled keys, per-user, without a lifetime, or sampling is off.
        case notSampled
        /// The schedule is full (`maxPending` samples or `maxPendingBytes`).
        case full
    }

    package let settings: FreshnessSettings
    /// Bound on scheduled samples (memory: each holds its payload).
    package let maxPending: Int
    /// Bound on the bytes the scheduled samples' payloads hold (`FreshnessCandidate.heldBytes`):
    /// a payload holds the request to send again, as large as the client made it.
    package let maxPendingBytes: Int
    /// The bytes the scheduled samples' payloads hold.
    package private(set) var pendingBytes = 0
    private var pending = DueQueue<FreshnessCandidate<Payload>>()
    private var inProgress: Set<CacheKey> = []
    private var bucket: TokenBucket
    /// Due samples skipped because the rate bound was spent.
    package private(set) var skippedForRate = 0
    /// Due samples skipped because a sampling fetch of the key was under way.
    package private(set) var skippedBusy = 0

    package init(settings: FreshnessSettings, maxPending: Int = 10_000, maxPendingBytes: Int = 1 << 20) {
        self.settings = settings
        self.maxPending = maxPending
        self.maxPendingBytes = maxPendingBytes
        bucket = TokenBucket(rate: settings.maxFetchesPerSecond, capacity: Self.burst(settings.maxFetchesPerSecond))
    }

    /// How often the performer takes due samples: a sample fires at most this late.
    package static var checkPeriod: Duration { .milliseconds(10) }

    /// The fetches one check may start: the bound's share of one period, at least one. With a
    /// bucket of one token a check could start only one, which capped the rate at 100 a second
    /// whatever `max_fetches_per_second` said.
    static func burst(_ rate: Double) -> Double {
        max(1, (rate * StatsReport.seconds(checkPeriod)).rounded(.down))
    }

    /// Scheduled samples not yet due.
    package var pendingCount: Int { pending.count }

    /// Whether `key` is one of the sampled keys (a cheap test to make before taking a lock).
    package func isSampled(_ key: CacheKey) -> Bool {
        settings.isOn && FreshnessSelection.isSampled(key, share: settings.share)
    }

    /// An entry was stored: schedules its sample at a uniformly random age in [0, ttl) when its
    /// key is sampled. Per-user entries are never sampled (their answers belong to one user).
    package mutating func offer(
        _ candidate: FreshnessCandidate<Payload>, isPerUser: Bool, using random: inout some RandomNumberGenerator
    ) -> Offer {
        guard !isPerUser, candidate.ttl > .zero, isSampled(candidate.key) else { return .notSampled }
        guard pending.count < maxPending, pendingBytes + candidate.heldBytes <= maxPendingBytes else { return .full }
        let due = candidate.storedAt + candidate.ttl * Double.random(in: 0..<1, using: &random)
        pending.insert(candidate, at: due)
        pendingBytes += candidate.heldBytes
        return .scheduled(due)
    }

    /// The samples due at `now` that may be fetched now: each is marked under way until
    /// `finished`. A due sample whose key is under way, or that finds the rate bound spent, is
    /// dropped, never delayed (a delay would skew the ages toward the end of lifetimes).
    package mutating func takeDue(now: ContinuousClock.Instant) -> [FreshnessCandidate<Payload>] {
        var due: [FreshnessCandidate<Payload>] = []
        while let candidate = pending.popFirst(dueBy: now) {
            pendingBytes -= candidate.heldBytes
            if inProgress.contains(candidate.key) {
                skippedBusy += 1
            } else if !bucket.take(now: now) {
                skippedForRate += 1
            } else {
                inProgress.insert(candidate.key)
                due.append(candidate)
            }
        }
        return due
    }

    /// The sampling fetch of `key` ended (answered or not).
    package mutating func finished(_ key: CacheKey) {
        inProgress.remove(key)
    }
}

extension FreshnessSampler: Sendable where Payload: Sendable {}
