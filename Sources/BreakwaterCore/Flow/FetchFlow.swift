// One fetch for a key (README "The origin side" and "The response cache", docs/FLEET.md) as a value: fleet tier, fleet-wide lease,
// origin, then store / serve stale / pass through. The fetch belongs to no client: whoever led
// it, its outcome goes to every waiter of the key.
//
//   start ── cacheable and a fleet tier ──▶ lookupTier ── fresh entry ──▶ finish(fleetHit)
//     │                                          └ miss ──▶ acquireLease ── won ──▶ send
//     │                                                        └ lost ──▶ awaitTierEntry ── entry ──▶ finish
//     │                                                                        └ none ──▶ send
//     └───────────────────────────────────────────────────────────────────────────────▶ send
//   send ──▶ originAnswered (strip a rewritten document's answer, then decide)
//                           ├─ storable ──▶ store (+ tier) ──▶ finish(stored)         MISS
//                           ├─ not storable ──▶ finish(bypassed)                     BYPASS
//                           ├─ failure/5xx, entry within stale_if_error ──▶ finish(staleFallback)  STALE
//                           └─ failure/5xx ──▶ finish(failed)                          502/504 or relayed

/// One origin fetch from start to outcome.
package struct FetchFlow {
    /// What the server layer does next.
    package enum Step {
        case lookupTier(CacheKey)
        case acquireLease(CacheKey, ttl: Duration)
        case awaitTierEntry(CacheKey, timeout: Duration)
        /// Send the request of the flow's `plan` to the origin, then call `originAnswered`. The
        /// plan is read where it is, in the flow: a copy in the step retained each of its parts.
        case send
        /// The fetch is over: answer every waiter from this outcome.
        case finish(FetchOutcome)
    }

    /// Work the server layer performs right after a step.
    package enum Effect: Equatable {
        /// Write the entry to the fleet tier, unless a purge counted after this count reached it.
        case storeInTier(CacheKey, unlessPurgedSince: FleetPurgeCount)
        /// Give the fleet-wide lease back.
        case releaseLease(CacheKey)
        /// Purge the entries tagged with these entities (a mutation named them).
        case purgeEntities([String])
    }

    package let plan: FetchPlan
    /// For a freshness sample (docs/FRESHNESS.md), the stored answer's entity tag: the fetch
    /// goes straight to the origin (a fleet tier would answer with what it holds), and an
    /// answer with this same tag is not stored again (the entry is unchanged, its age stands).
    package let sampledETag: String?
    private let environment: FlowEnvironment
    private var holdsLease = false
    private var effects: [Effect] = []
    /// The entry this fetch stored, for the `storeInTier` effect.
    package private(set) var storedEntry: CacheEntry?

    /// The last purge applied when the fetch began (`PurgeHistory`).
    private let purgesBefore: UInt64
    /// The fleet's purge count when the fetch looked in the tier; nil when it did not (a
    /// freshness sample) or the tier did not answer: the answer is then not written there.
    private var fleetPurgesBefore: FleetPurgeCount?

    package init(plan: FetchPlan, environment: FlowEnvironment, sampledETag: String? = nil) {
        self.plan = plan
        self.environment = environment
        self.sampledETag = sampledETag
        purgesBefore = environment.store.purges.current
    }

    /// The effects produced by the last step, once.
    package mutating func takeEffects() -> [Effect] {
        defer { effects.removeAll() }
        return effects
    }

    /// Mutating though it changes nothing: a flow kept in a class is then read in place, not
    /// copied (each copy retained every field of the plan).
    package mutating func start() -> Step {
        guard let key = plan.key, environment.sharesResponses, sampledETag == nil else { return .send }
        return .lookupTier(key)
    }

    /// The fleet tier answered `lookupTier` (nil: miss, timeout or down), with the fleet's purge
    /// count (nil when it did not answer).
    package mutating func tierLookedUp(_ entry: CacheEntry?, purges: FleetPurgeCount?) -> Step {
        guard let key = plan.key else { return .send }
        fleetPurgesBefore = purges
        if let outcome = fleetHit(entry) { return .finish(outcome) }
        // A fetch for one client alone makes no one else wait for it.
        if plan.isHitForMiss { return .send }
        return .acquireLease(key, ttl: environment.originTimeout)
    }

    /// The lease request answered: this proxy fetches, or waits for the one that does.
    package mutating func leaseAnswered(_ acquired: Bool) -> Step {
        guard let key = plan.key else { return .send }
        if acquired {
            holdsLease = true
            return .send
        }
        return .awaitTierEntry(key, timeout: environment.originTimeout)
    }

    /// Waiting for another proxy's entry ended (nil: it did not come in time): fetch ourselves.
    package mutating func awaitedEntry(_ entry: CacheEntry?) -> Step {
        if let outcome = fleetHit(entry) { return .finish(outcome) }
        return .send
    }

    /// Every client waiting on the fetch left: it stops where it stands. A fleet lease it holds
    /// goes back at once, so that the fleet's other proxies fetch for themselves instead of
    /// waiting out `origin.timeout` for an entry that will not come. Called again (a tier's
    /// answer arriving after the cancel), it has nothing more to give back.
    package mutating func cancel() -> [Effect] {
        guard holdsLease, let key = plan.key else { return [] }
        holdsLease = false
        return [.releaseLease(key)]
    }

    /// The origin answered (or failed): decide storage, stale-if-error, invalidation.
    /// The clock is read only where the answer is kept or stands in: an answer that is not stored
    /// (a TTL-0 rule, a bypass) needs no time.
    package mutating func originAnswered(_ result: UpstreamResult) -> Step {
        // The lease goes back last, after the entry was written to the tier: a proxy waiting on
        // it then finds the entry the moment it sees the lease gone.
        defer {
            if holdsLease, let key = plan.key {
                effects.append(.releaseLease(key))
                holdsLease = false
            }
        }
        // The answer to a rewritten document loses the reserved members before anything reads,
        // relays or keeps it (a 5xx with partial data too); its tags and types come with the one
        // parse the stripping takes. Answers to documents sent as written are not scanned.
        var stripped: StrippedAnswer?
        var result = result
        if plan.operation.isRewritten, case .response(var response) = result,
            let answer = AnswerStripper.strip(response.body)
        {
            response.body = answer.body
            stripped = answer
            result = .response(response)
        }
        let outcome = OriginOutcome(result)
        guard case .answered(let response) = outcome else {
            // Stale-if-error: on any failure or 5xx, an entry within its windows stands in.
            let now = environment.clock.now
            if let key = plan.key, let fallback = environment.store.lookup(key, now: now).entry {
                return .finish(.staleFallback(fallback, age: max(.zero, now - fallback.storedAt), originStatus: outcome.status))
            }
            return .finish(.failed(outcome))
        }
        // The policy is read through the environment, not bound: a copy retains every field.
        if plan.operation.kind == .mutation && environment.policy.settings.invalidateOnMutation
            && environment.policy.settings.entityTags != .off
        {
            let tags = MutationInvalidation.tags(in: response, known: stripped?.tags)
            if !tags.isEmpty { effects.append(.purgeEntities(tags)) }
        }
        let operation = plan.operation
        guard let key = plan.key else {
            // A TTL-0 rule: the storage checks before the TTL still say why (non-200, Set-Cookie...).
            if plan.bypass == .zeroTTL,
                case .doNotStore(let reason) = environment.storage(of: response, operationName: operation.operationName)
            {
                return .finish(.bypassed(response, reason))
            }
            return .finish(.bypassed(response, plan.bypass ?? .notAQuery))
        }
        switch environment.storage(
            of: response, operationName: operation.operationName, stripped: stripped, isPerUser: plan.isPerUser,
            showsTypes: operation.showsTypes)
        {
        case .doNotStore(let reason):
            if reason == .perUserType {
                environment.perUserOperations?.remember(operation.document.digest, operationName: operation.operationName)
            }
            return .finish(.bypassed(response, reason))
        case .store(let ttl, var tags, let basis):
            let now = environment.clock.now
            // Stored while a schema is expected but the document was not checked against one:
            // marked, so that every entity purge reaches it, and kept out of the fleet tier.
            let isUnchecked = environment.expectsSchema && !operation.showsTypes
            if isUnchecked { tags.append(EntityTags.unchecked) }
            let entry = CacheEntry.make(
                key: key, answer: response, ttl: ttl, basis: basis, tags: tags, operation: operation,
                isPerUser: plan.isPerUser,
                settings: environment.policy.settings, now: now, wallNow: environment.clock.wallNow,
                hasher: environment.hasher,
                tagHeader: environment.policy.tagHeader?.field(
                    for: (operation.operationName, operation.document.digest, tags), isPerUser: plan.isPerUser))
            guard entry.cost <= environment.store.maxEntryCost else { return .finish(.bypassed(response, .tooLarge)) }
            // A freshness sample that found the answer unchanged leaves the entry as it is.
            if let sampledETag, sampledETag == entry.etag {
                return .finish(.stored(entry, originStatus: response.status))
            }
            // A purge that reaches it came while it was fetched: read before the change the purge
            // announced, it would be served as fresh for its whole TTL.
            if environment.store.purges.reaches(
                since: purgesBefore, operationName: operation.operationName, digest: operation.document.digest,
                tags: tags)
            {
                return .finish(.bypassed(response, .purgedWhileFetched))
            }
            environment.store.store(entry, now: now)
            storedEntry = entry
            if environment.sharesResponses && !isUnchecked, let fleetPurgesBefore {
                effects.append(.storeInTier(key, unlessPurgedSince: fleetPurgesBefore))
            }
            return .finish(.stored(entry, originStatus: response.status))
        }
    }

    /// A fresh entry from the fleet tier, kept locally for its remaining life. One stored
    /// unchecked (`EntityTags.unchecked`) is never served from there: its tags may miss entities
    /// and a per-user type in it went unseen, so it is a miss, fetched again and overwritten. The
    /// proxies keep such entries out of the tier; this holds whoever wrote it. Its TTL is cut to
    /// what this proxy's settings give it (`CachePolicy.loweredTTL(of:)`): a proxy whose reload
    /// lowered a TTL does not take the longer one back from the tier.
    private func fleetHit(_ entry: CacheEntry?) -> FetchOutcome? {
        guard var entry = entry?.withTagHeader(environment.policy.tagHeader), entry.key == plan.key,
            !entry.tags.contains(EntityTags.unchecked)
        else { return nil }
        if let lowered = environment.policy.loweredTTL(of: entry) { entry = entry.withTTL(lowered) }
        let now = environment.clock.now
        guard case .fresh(_, let age) = CacheLookup(classifying: entry, staleSince: nil, now: now) else { return nil }
        environment.store.store(entry, now: now)
        return .fleetHit(entry, age: age)
    }
}
