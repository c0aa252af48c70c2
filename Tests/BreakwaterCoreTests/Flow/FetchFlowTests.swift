// One fetch's rules (README "The origin side" and "The response cache", docs/FLEET.md) in-process: what is stored, what is passed
// through and why, what stands in when the origin fails, and the fleet tier's steps.

@testable import BreakwaterCore
import Testing

struct FetchFlowTests {
    /// The plan of a miss for the launch query (document registered through a hash + query POST).
    private func missPlan(_ fixture: FlowFixture, id: String = "1") throws -> FetchPlan {
        var (flow, step) = fixture.start(FlowFixture.register(id: id))
        fixture.perform(flow.takeEffects())
        return try #require(step.joinedPlan)
    }

    private func fetch(_ fixture: FlowFixture, _ plan: FetchPlan, answer: UpstreamResult, sampledETag: String? = nil)
        -> (FetchFlow, FetchOutcome?)
    {
        var flow = FetchFlow(plan: plan, environment: fixture.environment, sampledETag: sampledETag)
        let outcome = flow.originAnswered(answer).outcome
        return (flow, outcome)
    }

    /// An entry for `plan`'s key as the fleet tier gives it, stored now under `ttl`.
    private static func tierEntry(_ fixture: FlowFixture, _ plan: FetchPlan, key: CacheKey, ttl: Duration) -> CacheEntry {
        CacheEntry.make(
            key: key, answer: HTTPResponse(status: 200, body: #"{"data":{}}"#), ttl: ttl, tags: [],
            operation: plan.operation, isPerUser: false, settings: fixture.environment.policy.settings,
            now: fixture.clock.now, wallNow: fixture.clock.wallNow, hasher: FlowFixture.hasher)
    }

    private static let client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])

    @Test func storableAnswerIsStoredAndEveryWaiterSeesMiss() throws {
        let fixture = FlowFixture()
        let plan = try missPlan(fixture)
        let (_, outcome) = fetch(fixture, plan, answer: FlowFixture.answer())
        let reply = try #require(outcome).reply(for: Self.client)
        #expect(reply.cache == .miss)
        #expect(reply.response.headers.values(of: "X-Cache") == ["MISS"])
        #expect(reply.originStatus == 200)
        #expect(fixture.store.lookup(try #require(plan.key), now: fixture.clock.now).entry != nil)
    }

    @Test(arguments: [
        (#"{"errors":[{"message":"boom"}]}"#, 200, [("Content-Type", "application/json")], BypassReason.graphQLErrors),
        (#"{"data":{}}"#, 200, [("Content-Type", "application/json"), ("Set-Cookie", "a=b")], .setCookie),
        (#"{"data":{}}"#, 200, [("Content-Type", "application/json"), ("Cache-Control", "private")], .originPrivate),
        (#"{"data":{}}"#, 200, [("Content-Type", "application/json"), ("Vary", "*")], .originVary),
        (#"{"data":{}}"#, 200, [("Content-Type", "application/json"), ("Vary", "Authorization")], .originVary),
        (#"{"errors":[{"message":"no"}]}"#, 403, [("Content-Type", "application/json")], .originStatus),
    ])
    func unstorableAnswersAreBypassedWithTheirReason(body: String, status: Int, headers: [(String, String)], reason: BypassReason)
        throws
    {
        let fixture = FlowFixture()
        let plan = try missPlan(fixture)
        let (_, outcome) = fetch(fixture, plan, answer: FlowFixture.answer(body, status: status, headers: HTTPHeaders(headers.map { (name: $0.0, value: $0.1) })))
        let reply = try #require(outcome).reply(for: Self.client)
        #expect(reply.cache == .bypass)
        #expect(reply.bypassReason == reason)
        #expect(reply.response.headers.values(of: "Cache-Control") == ["private, no-store"])
        #expect(fixture.store.statistics.entries == 0)
    }

    @Test func aFreshnessSampleGoesToTheOriginAndKeepsAnUnchangedEntryAsItIs() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        _ = fetch(fixture, plan, answer: FlowFixture.answer())
        let stored = try #require(fixture.store.lookup(key, now: fixture.clock.now).entry)
        fixture.clock.advance(by: .seconds(12))
        // Not the fleet tier: it would answer with what it holds, not with the origin's answer now.
        var sample = FetchFlow(plan: plan, environment: fixture.environment, sampledETag: stored.etag)
        guard case .send = sample.start() else {
            Issue.record("a sample must go to the origin")
            return
        }
        let (unchangedFlow, unchanged) = fetch(fixture, plan, answer: FlowFixture.answer(), sampledETag: stored.etag)
        guard case .stored(let same, _) = try #require(unchanged) else { Issue.record("expected an answer"); return }
        #expect(same.etag == stored.etag)
        #expect(unchangedFlow.storedEntry == nil)
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry?.storedAt == stored.storedAt)
        // A changed answer replaces the entry: it was stale.
        let changedBody = #"{"data":{"launch":{"id":"1","site":"moved"}}}"#
        let (_, changed) = fetch(fixture, plan, answer: FlowFixture.answer(changedBody), sampledETag: stored.etag)
        guard case .stored(let fresh, _) = try #require(changed) else { Issue.record("expected an answer"); return }
        #expect(fresh.etag != stored.etag)
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry?.etag == fresh.etag)
    }

    @Test func answerLargerThanAnEntryMayBeIsBypassNotMiss() throws {
        let fixture = FlowFixture(maxBytes: 64 << 10)
        let plan = try missPlan(fixture)
        let big = #"{"data":{"launch":{"id":"1","site":""# + String(repeating: "x", count: 200 << 10) + #""}}}"#
        let (_, outcome) = fetch(fixture, plan, answer: FlowFixture.answer(big))
        let reply = try #require(outcome).reply(for: Self.client)
        #expect(reply.cache == .bypass)
        #expect(reply.bypassReason == .tooLarge)
    }

    @Test func originFailureServesAnEntryWithinStaleIfErrorElseAnError() throws {
        let fixture = FlowFixture()
        let plan = try missPlan(fixture)
        _ = fetch(fixture, plan, answer: FlowFixture.answer())
        fixture.clock.advance(by: .seconds(45))  // past TTL 30 + swr 10, within stale_if_error 60

        for failure in [UpstreamResult.failure(.timeout), .failure(.unreachable("reset")), FlowFixture.answer("<html>", status: 503, headers: ["Content-Type": "text/html"])] {
            let reply = try #require(fetch(fixture, plan, answer: failure).1).reply(for: Self.client)
            #expect(reply.cache == .stale)
            #expect(reply.response.headers["Age"] == "45")
        }
        fixture.clock.advance(by: .seconds(60))  // past every window
        let timeout = try #require(fetch(fixture, plan, answer: .failure(.timeout)).1).reply(for: Self.client)
        #expect(timeout.response.status == 504)
        #expect(timeout.errorCode == "ORIGIN_TIMEOUT")
        #expect(timeout.recordedErrorCode == "ORIGIN_TIMEOUT")
        let page = try #require(fetch(fixture, plan, answer: FlowFixture.answer("<html>", status: 500, headers: ["Content-Type": "text/html"])).1)
            .reply(for: Self.client)
        #expect(page.response.status == 502)
        #expect(page.response.headers.values(of: "Cache-Control").count == 1)
        #expect(page.originStatus == 500)
    }

    @Test func mutationAnswerNamingEntitiesPurgesThem() throws {
        let fixture = FlowFixture()
        let mutation = #"{"query":"\#(FlowFixture.mutationDocument)","variables":{"ids":["1"]}}"#
        guard case .fetch(let plan) = fixture.start(FlowFixture.post(mutation)).1 else {
            Issue.record("expected an uncached fetch")
            return
        }
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        let answer = #"{"data":{"bookTrips":{"success":true,"launches":[{"__typename":"Launch","id":"1"}]}}}"#
        #expect(flow.originAnswered(FlowFixture.answer(answer)).outcome != nil)
        #expect(flow.takeEffects() == [.purgeEntities(["Launch:1"])])
    }

    @Test func sharedTierIsAskedBeforeTheOriginAndTheLeaseDecidesWhoFetches() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        guard case .lookupTier(key) = flow.start() else { Issue.record("expected a tier lookup"); return }
        guard case .acquireLease(key, _) = flow.tierLookedUp(nil, purges: FleetPurgeCount(0)) else { Issue.record("expected a lease"); return }
        guard case .send = flow.leaseAnswered(true) else { Issue.record("the lease holder fetches"); return }
        #expect(flow.originAnswered(FlowFixture.answer()).outcome != nil)
        #expect(flow.takeEffects() == [.storeInTier(key, unlessPurgedSince: FleetPurgeCount(0)), .releaseLease(key)], "the entry is in the tier before the lease goes")

        var loser = FetchFlow(plan: plan, environment: fixture.environment)
        _ = loser.tierLookedUp(nil, purges: FleetPurgeCount(0))
        guard case .awaitTierEntry(key, .seconds(5)) = loser.leaseAnswered(false) else {
            Issue.record("a proxy that lost the lease waits up to origin.timeout")
            return
        }
        guard case .send = loser.awaitedEntry(nil) else { Issue.record("then fetches itself"); return }
    }

    @Test func anAnswerFetchedAcrossAPurgeThatReachesItIsNotStored() throws {
        let fixture = FlowFixture()
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        let store = fixture.environment.store
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        _ = flow.start()
        store.purge(.operation(try #require(plan.operation.operationName)), soft: false, now: fixture.clock.now)
        guard case .bypassed(_, .purgedWhileFetched)? = flow.originAnswered(FlowFixture.answer()).outcome else {
            Issue.record("stored across the purge")
            return
        }
        #expect(store.lookup(key, now: fixture.clock.now).entry == nil)
        #expect(AnswerSharing(.purgedWhileFetched) == .fetcherOnly(remember: false), "each waiter fetches again")

        // A purge that does not reach it, or one before the fetch began, leaves it stored.
        var unrelated = FetchFlow(plan: plan, environment: fixture.environment)
        store.purge(.tag("Rocket:9"), soft: false, now: fixture.clock.now)
        guard case .stored? = unrelated.originAnswered(FlowFixture.answer()).outcome else {
            Issue.record("an unrelated purge kept it out")
            return
        }
    }

    @Test func aFetchOlderThanThePurgesKeptCountsAsReached() {
        let history = PurgeHistory()
        let digest = SHA256Digest(bytes: Array(repeating: 1, count: 32))
        let since = history.current
        #expect(!history.reaches(since: since, operationName: "A", digest: digest, tags: ["Launch:1"]))
        for index in 0...PurgeHistory.capacity { history.record(.tag("Rocket:\(index)")) }
        #expect(history.reaches(since: since, operationName: "A", digest: digest, tags: ["Launch:1"]))
        let later = history.current
        history.record(.tag("Launch:1"))
        #expect(history.reaches(since: later, operationName: "A", digest: digest, tags: ["Launch:1"]))
        #expect(!history.reaches(since: later, operationName: "A", digest: digest, tags: ["Launch:2"]))
    }

    /// The tier's write names the fleet's purge count the lookup saw, so that a purge another
    /// proxy makes while this fetch runs keeps its answer out of the tier (docs/FLEET.md). With no
    /// count (the tier did not answer, or a freshness sample, which does not look there) the
    /// answer is stored here only.
    @Test func theTierWriteNamesThePurgeCountItsLookupSawAndNoneIsWrittenWithoutOne() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        _ = flow.start()
        _ = flow.tierLookedUp(nil, purges: FleetPurgeCount(41))
        _ = flow.leaseAnswered(true)
        #expect(flow.originAnswered(FlowFixture.answer()).outcome != nil)
        #expect(flow.takeEffects() == [.storeInTier(key, unlessPurgedSince: FleetPurgeCount(41)), .releaseLease(key)])

        var unanswered = FetchFlow(plan: plan, environment: fixture.environment)
        _ = unanswered.start()
        _ = unanswered.tierLookedUp(nil, purges: nil)
        _ = unanswered.leaseAnswered(true)
        #expect(unanswered.originAnswered(FlowFixture.answer(#"{"data":{"launch":{"id":"2"}}}"#)).outcome != nil)
        #expect(unanswered.takeEffects() == [.releaseLease(key)], "stored here, not in the tier")
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry != nil)

        let stored = try #require(fixture.store.lookup(key, now: fixture.clock.now).entry)
        var sample = FetchFlow(plan: plan, environment: fixture.environment, sampledETag: stored.etag)
        guard case .send = sample.start() else { Issue.record("a sample goes straight to the origin"); return }
        #expect(sample.originAnswered(FlowFixture.answer(#"{"data":{"launch":{"id":"3"}}}"#)).outcome != nil)
        #expect(sample.takeEffects() == [])
    }

    @Test func aCancelledFetchGivesItsLeaseBackOnce() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        _ = flow.start()
        _ = flow.tierLookedUp(nil, purges: FleetPurgeCount(0))
        #expect(flow.cancel() == [], "no lease is held before the fleet answers")
        _ = flow.leaseAnswered(true)
        #expect(flow.cancel() == [.releaseLease(key)])
        #expect(flow.cancel() == [], "given back once")

        var loser = FetchFlow(plan: plan, environment: fixture.environment)
        _ = loser.tierLookedUp(nil, purges: FleetPurgeCount(0))
        _ = loser.leaseAnswered(false)
        #expect(loser.cancel() == [], "a proxy waiting on another's lease holds none")
    }

    @Test func freshSharedEntryIsAHitAndFillsTheLocalStore() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        let entry = Self.tierEntry(fixture, plan, key: key, ttl: .seconds(30))
        fixture.clock.advance(by: .seconds(3))
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        let reply = try #require(flow.tierLookedUp(entry, purges: FleetPurgeCount(0)).outcome).reply(for: Self.client)
        #expect(reply.cache == .hit)
        #expect(reply.response.headers["Age"] == "3")
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry != nil)
    }

    /// An entry another proxy stored under a longer TTL (its configuration not yet reloaded) is
    /// read under this proxy's rule (30 s): past it, a miss; within it, a hit that keeps the cut.
    @Test func aSharedEntryIsCutToThisProxysShorterTTL() throws {
        let fixture = FlowFixture(sharesResponses: true)
        let plan = try missPlan(fixture)
        let key = try #require(plan.key)
        let entry = Self.tierEntry(fixture, plan, key: key, ttl: .seconds(300))
        fixture.clock.advance(by: .seconds(40))
        var old = FetchFlow(plan: plan, environment: fixture.environment)
        guard case .acquireLease = old.tierLookedUp(entry, purges: FleetPurgeCount(0)) else {
            Issue.record("an entry past this proxy's TTL was served from the tier")
            return
        }
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry == nil)

        let young = Self.tierEntry(fixture, plan, key: key, ttl: .seconds(300))
        fixture.clock.advance(by: .seconds(3))
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        let reply = try #require(flow.tierLookedUp(young, purges: FleetPurgeCount(0)).outcome).reply(for: Self.client)
        #expect(reply.cache == .hit)
        #expect(fixture.store.lookup(key, now: fixture.clock.now).entry?.ttl == .seconds(30))
    }
}
