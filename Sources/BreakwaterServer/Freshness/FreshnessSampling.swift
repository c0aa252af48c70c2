// Freshness sampling as the proxy performs it (docs/FRESHNESS.md): entries are offered as they
// are stored, a timer on the first loop takes the due samples and fetches them through that
// loop's handler (the normal origin path), and the answers are recorded per operation. The timer
// runs only while samples are scheduled: a proxy serving hits alone never wakes for it. The
// decisions are `FreshnessSampler`'s and the estimate `FreshnessEstimate`'s (BreakwaterCore).

import BreakwaterCore
import Synchronization

/// The proxy's freshness sampler and samples, shared by every loop.
final class FreshnessSampling: Sendable {
    /// The due-sample check's period: a sample fires at most this late.
    static let period = FreshnessSampler<FetchPlan>.checkPeriod
    /// The request header that marks a sampling fetch for the origin.
    static let header = (name: "Breakwater-Sample", value: "freshness")

    private struct State {
        var sampler: FreshnessSampler<FetchPlan>
        var ledger = FreshnessLedger()
        var random = SystemRandomNumberGenerator()
        /// The timer is armed (or being armed): set by the offer that schedules into an empty
        /// schedule, cleared by the tick that leaves it empty.
        var isTicking = false
    }

    private let state: Mutex<State>
    /// Read without the lock on the miss path: whether to offer at all, and the share.
    private let quick: Mutex<FreshnessSettings>
    /// The running cache policy, which gives each row its current TTL (`FreshnessCurrentTTL`).
    private let policy: Mutex<CachePolicy>

    init(settings: FreshnessSettings, policy: CachePolicy = CachePolicy(Configuration.Cache())) {
        state = Mutex(State(sampler: FreshnessSampler(settings: settings)))
        quick = Mutex(settings)
        self.policy = Mutex(policy)
    }

    var settings: FreshnessSettings { quick.withLock { $0 } }

    /// Takes new settings (a reload): samples scheduled under the old ones are dropped, those
    /// taken are kept; the figures show the TTLs `policy` gives from the next read on.
    func apply(_ settings: FreshnessSettings, policy: CachePolicy) {
        self.policy.withLock { $0 = policy }
        guard settings != self.settings else { return }
        quick.withLock { $0 = settings }
        state.withLock { $0.sampler = FreshnessSampler(settings: settings) }
    }

    /// A client's fetch stored `entry` for `plan`: schedules its sample when its key is sampled.
    func offer(_ entry: CacheEntry, plan: FetchPlan) {
        let settings = self.settings
        guard settings.isOn, !plan.isPerUser,
            FreshnessSelection.isSampled(entry.key, share: settings.share),
            let operationName = RecordedName.operation(resolved: entry.operationName)
        else { return }
        let candidate = FreshnessCandidate(
            key: entry.key, operationName: operationName, etag: entry.etag, storedAt: entry.storedAt, ttl: entry.ttl,
            ttlBasis: entry.ttlBasis, payload: plan, heldBytes: plan.heldBytes)
        let wakes = state.withLock { state in
            guard case .scheduled = state.sampler.offer(candidate, isPerUser: entry.isPerUser, using: &state.random),
                !state.isTicking
            else { return false }
            state.isTicking = true
            return true
        }
        if wakes { startTicking.current?() }
    }

    /// Arms the timer that calls `tick` (set once by the proxy's assembly).
    private let startTicking = LockedCallback<@Sendable () -> Void>()

    func onStartTicking(_ start: @escaping @Sendable () -> Void) {
        startTicking.set(start)
    }

    /// The samples to fetch now, each marked under way, and whether the timer should tick again
    /// (samples are still scheduled).
    func tick(now: ContinuousClock.Instant) -> (due: [FreshnessCandidate<FetchPlan>], again: Bool) {
        state.withLock { state in
            let due = state.sampler.takeDue(now: now)
            state.isTicking = state.sampler.pendingCount > 0
            return (due, state.isTicking)
        }
    }

    /// The sampling fetch of `candidate` ended: with the answer's entity tag at `answeredAt`
    /// (recorded), or without an answer to compare (nil: a failure, not stored, key busy).
    @discardableResult
    func finished(_ candidate: FreshnessCandidate<FetchPlan>, answeredWith etag: String?, at answeredAt: ContinuousClock.Instant)
        -> FreshnessSample?
    {
        let sample = etag.map { candidate.sample(answeredWith: $0, at: answeredAt) }
        state.withLock { state in
            state.sampler.finished(candidate.key)
            if let sample { state.ledger.record(sample) }
        }
        if let sample { publish.current?(sample) }
        return sample
    }

    /// The samples this proxy took, per operation.
    var ledger: FreshnessLedger { state.withLock { $0.ledger } }

    /// With a fleet: where each sample goes besides the local ledger (the fleet's pool).
    private let publish = LockedCallback<@Sendable (FreshnessSample) -> Void>()
    /// The fleet's pool as last read, and when.
    private let pooled = Mutex<(ledger: FreshnessLedger, readAt: ContinuousClock.Instant)?>(nil)
    /// A pool read older than this no longer counts (Redis is down or slow): local samples are shown.
    static let poolLifetime = Duration.seconds(10)

    func onSample(_ publish: @escaping @Sendable (FreshnessSample) -> Void) {
        self.publish.set(publish)
    }

    /// The fleet's pool was read at `readAt`.
    func adoptPool(_ ledger: FreshnessLedger, readAt: ContinuousClock.Instant) {
        pooled.withLock { $0 = (ledger, readAt) }
    }

    /// The ledger the figures come from: the fleet's pool while it is being read, else this
    /// proxy's own samples.
    func currentLedger(now: ContinuousClock.Instant) -> FreshnessLedger {
        if let pool = pooled.withLock({ $0 }), now - pool.readAt < Self.poolLifetime { return pool.ledger }
        return ledger
    }

    /// The `/stats` and `/metrics` figures (estimated outside the lock), each operation at the TTL
    /// the running configuration gives it: from this proxy's own latest sample of it when there is
    /// one (a pooled row keeps no record of what its TTL was decided from).
    func report(now: ContinuousClock.Instant = .now) -> FreshnessReport {
        let settings = self.settings
        let policy = self.policy.withLock { $0 }
        let own = ledger
        let estimates = currentLedger(now: now).estimates(target: settings.target) { name, row in
            FreshnessCurrentTTL.seconds(
                operation: name, latestBasis: own.operations[name]?.latestTTLBasis,
                sampledTTLSeconds: row.currentTTLSeconds, policy: policy)
        }
        return FreshnessReport(settings: settings, estimates: estimates)
    }
}
