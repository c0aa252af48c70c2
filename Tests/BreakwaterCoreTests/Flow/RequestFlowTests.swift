// The request flow's rules (README "GraphQL over HTTP rules" and "The response cache") decided in-process: no sockets, no sleeps,
// time moved by a manual clock.

@testable import BreakwaterCore
import Testing

struct RequestFlowTests {
    /// Registers the launch document through a hash + query POST and stores its answer.
    private func warm(_ fixture: FlowFixture) throws -> CacheKey {
        var (flow, step) = fixture.start(FlowFixture.register())
        fixture.perform(flow.takeEffects())
        let plan = try #require(step.joinedPlan)
        var fetch = FetchFlow(plan: plan, environment: fixture.environment)
        guard case .send = fetch.start() else { Issue.record("expected a send"); return try #require(plan.key) }
        #expect(fetch.originAnswered(FlowFixture.answer()).outcome != nil)
        return try #require(plan.key)
    }

    @Test func hashedGetWalksMissHitStaleAndStaleIfErrorOnlyAsTheClockMoves() throws {
        let fixture = FlowFixture()
        let key = try warm(fixture)
        let hit = try #require(fixture.start(FlowFixture.hashedGET()).1.reply)
        #expect(hit.cache == .hit)
        #expect(hit.response.headers["Age"] == "0")

        fixture.clock.advance(by: .seconds(12))
        #expect(try #require(fixture.start(FlowFixture.hashedGET()).1.reply).response.headers["Age"] == "12")

        fixture.clock.advance(by: .seconds(20))  // 32 s: past the 30 s TTL, within 10 s of swr
        guard case .replyAndRefresh(let stale, let refresh) = fixture.start(FlowFixture.hashedGET()).1 else {
            Issue.record("expected a stale answer and a refresh")
            return
        }
        #expect(stale.cache == .stale)
        #expect(refresh.key == key)

        fixture.clock.advance(by: .seconds(20))  // 52 s: past swr, within stale_if_error: a miss
        #expect(fixture.start(FlowFixture.hashedGET()).1.joinedPlan?.key == key)
    }

    /// The per-loop memo keeps operations that may be answered from the cache; a TTL-0
    /// operation's or a mutation's requests all go to the origin, and are not kept.
    @Test func onlyCacheableOperationsAreMemoized() throws {
        let fixture = FlowFixture { $0.cache.rules.append(.init(operation: "Live", ttl: .zero)) }
        let live = #"{"query":"query Live { launch(id: 1) { id } }","variables":{"id":"1"}}"#
        guard case .fetch(let plan) = fixture.start(FlowFixture.post(live)).1 else {
            Issue.record("expected an uncached fetch")
            return
        }
        #expect(plan.bypass == .zeroTTL)
        let mutation = #"{"query":"\#(FlowFixture.mutationDocument)","variables":{"ids":["1"]}}"#
        guard case .fetch = fixture.start(FlowFixture.post(mutation)).1 else {
            Issue.record("expected an uncached fetch")
            return
        }
        #expect(fixture.memo.count == 0)
        // A cacheable request is kept the second time (the memo's doorkeeper).
        let cached = #"{"query":"\#(FlowFixture.launchDocument)","variables":{"id":"1"}}"#
        #expect(fixture.start(FlowFixture.post(cached)).1.joinedPlan != nil)
        #expect(fixture.memo.count == 0)
        #expect(fixture.start(FlowFixture.post(cached)).1.joinedPlan != nil)
        #expect(fixture.memo.count == 1)
        // The same TTL-0 request again is parsed again and still bypasses.
        guard case .fetch(let again) = fixture.start(FlowFixture.post(live)).1 else {
            Issue.record("expected an uncached fetch")
            return
        }
        #expect(again.bypass == .zeroTTL)
    }

    @Test func unknownHashWithoutASharedRegistryIsPersistedQueryNotFound() throws {
        let (flow, step) = FlowFixture().start(FlowFixture.hashedGET())
        let reply = try #require(step.reply)
        #expect(flow.requested.digest == FlowFixture.launchDigest, "the access log names the hash")
        #expect(flow.requested.operationName == "GetLaunch")
        #expect(reply.errorCode == "PERSISTED_QUERY_NOT_FOUND")
        #expect(reply.apqEvent == .notFound)
        #expect(reply.response.status == 200)
    }

    @Test func unknownHashIsLookedUpInTheSharedRegistryAndVerified() throws {
        let fixture = FlowFixture(sharesDocuments: true)
        var (flow, step) = fixture.start(FlowFixture.hashedGET())
        guard case .lookupDocument(let digest) = step else {
            Issue.record("expected a shared-registry lookup, got \(step)")
            return
        }
        #expect(digest == FlowFixture.launchDigest)
        let found = flow.documentLookedUp(FlowFixture.launchDocument)
        #expect(found.joinedPlan != nil)
        #expect(flow.takeEffects() == [.register(
            ResolvedDocument(digest: digest, text: FlowFixture.launchDocument, shouldRegister: false), publish: false)])

        // A text that does not hash to the digest is never trusted; nothing is a not-found too.
        // (Fresh fixtures: the first flow's memo now knows the request.)
        var (forged, _) = FlowFixture(sharesDocuments: true).start(FlowFixture.hashedGET())
        #expect(forged.documentLookedUp("query Evil { me { id } }").reply?.errorCode == "PERSISTED_QUERY_NOT_FOUND")
        #expect(forged.takeEffects().isEmpty)
        var (absent, _) = FlowFixture(sharesDocuments: true).start(FlowFixture.hashedGET())
        #expect(absent.documentLookedUp(nil).reply?.apqEvent == .notFound)
    }

    /// The loop the issue found: a full registry evicts a hash, the client re-sends hash + query,
    /// and the memo (which remembers that exact body) must still register it again.
    @Test func reRegistrationAfterEvictionRegistersAgainThoughTheMemoKnowsTheRequest() throws {
        let fixture = FlowFixture(maxRegistryEntries: 1)
        var (first, _) = fixture.start(FlowFixture.register())
        fixture.perform(first.takeEffects())
        #expect(fixture.startElsewhere(FlowFixture.hashedGET()).reply?.errorCode == nil)

        // Another document takes the registry's only place: hashed GETs are unknown again.
        var (other, _) = fixture.start(FlowFixture.register("query Other { launch(id: \"2\") { id } }"))
        fixture.perform(other.takeEffects())
        #expect(fixture.startElsewhere(FlowFixture.hashedGET()).reply?.errorCode == "PERSISTED_QUERY_NOT_FOUND")

        // The client re-sends hash + query; this loop's memo knows that exact body.
        var (again, step) = fixture.start(FlowFixture.register())
        #expect(step.joinedPlan != nil)
        let effects = again.takeEffects()
        #expect(effects.count == 1, "the memoised registration request must register again")
        fixture.perform(effects)
        #expect(fixture.startElsewhere(FlowFixture.hashedGET()).joinedPlan != nil)
    }

    @Test func mutationsAndPrivateRequestsAreFetchedWithoutAKey() throws {
        let fixture = FlowFixture()
        let mutation = #"{"query":"\#(FlowFixture.mutationDocument)","variables":{"ids":["1"]}}"#
        guard case .fetch(let plan) = fixture.start(FlowFixture.post(mutation)).1 else {
            Issue.record("a mutation is fetched uncached")
            return
        }
        #expect(plan.key == nil)
        #expect(plan.bypass == .notAQuery)

        let query = #"{"query":"query GetLaunch($id: ID!) { launch(id: $id) { id } }","variables":{"id":"1"}}"#
        guard case .fetch(let privatePlan) = fixture.start(FlowFixture.post(query, headers: ["Authorization": "Bearer a"])).1
        else {
            Issue.record("a private request is fetched uncached")
            return
        }
        #expect(privatePlan.bypass == .privateRequest)
    }

    @Test func perUserRuleKeysEachUserApart() throws {
        let fixture = FlowFixture()
        let me = #"{"query":"query Me { me { id } }"}"#
        let alice = try #require(fixture.start(FlowFixture.post(me, headers: ["Authorization": "a"])).1.joinedPlan)
        let bob = try #require(fixture.start(FlowFixture.post(me, headers: ["Authorization": "b"])).1.joinedPlan)
        let aliceAgain = try #require(fixture.start(FlowFixture.post(me, headers: ["Authorization": "a"])).1.joinedPlan)
        #expect(alice.isPerUser)
        #expect(alice.key != bob.key)
        #expect(alice.key == aliceAgain.key)
    }

    /// README "The origin side": an answer fetched for one Accept-Language is never served for another,
    /// nor is one fetch coalesced across values.
    @Test func forwardedAcceptLanguageIsPartOfTheKey() throws {
        let fixture = FlowFixture()
        _ = try warm(fixture)
        let plain = try #require(fixture.start(FlowFixture.hashedGET()).1.reply)
        #expect(plain.cache == .hit)
        #expect(plain.response.headers["Vary"] == "Accept, Accept-Language")
        let french = fixture.start(FlowFixture.hashedGET(headers: ["Accept-Language": "fr"])).1.joinedPlan
        let english = fixture.start(FlowFixture.hashedGET(headers: ["Accept-Language": "en"])).1.joinedPlan
        #expect(french != nil && english != nil)
        #expect(french?.key != english?.key)
        #expect(fixture.start(FlowFixture.hashedGET(headers: ["Accept-Language": "fr"])).1.joinedPlan?.key == french?.key)
    }

    @Test(arguments: [
        ("PUT", "/graphql", 405, "METHOD_NOT_ALLOWED"),
        ("GET", "/other", 404, "NOT_FOUND"),
        ("GET", "/graphql?query=%7B", 400, "GRAPHQL_PARSE_FAILED"),
    ])
    func earlyAnswersCarryTheirCode(method: String, target: String, status: Int, code: String) throws {
        let reply = try #require(FlowFixture().start(HTTPRequest(method: HTTPMethod(token: method), target: target)).1.reply)
        #expect(reply.response.status == status)
        #expect(reply.errorCode == code)
        #expect(reply.cache == .bypass)
        #expect(reply.response.headers["X-Cache"] == "BYPASS")
    }

    @Test func preflightCarriesEachCORSHeaderOnce() throws {
        let fixture = FlowFixture(configure: {
            var cors = Configuration.CORS()
            cors.allowOrigins = ["https://app.example.com"]
            $0.server.cors = cors
        })
        let request = HTTPRequest(
            method: .options, target: "/graphql",
            headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"])
        let reply = try #require(fixture.start(request).1.reply)
        #expect(reply.response.status == 204)
        #expect(reply.response.headers.values(of: "Access-Control-Allow-Origin") == ["https://app.example.com"])
        #expect(reply.response.headers.values(of: "Vary") == ["Origin"])
    }
}
