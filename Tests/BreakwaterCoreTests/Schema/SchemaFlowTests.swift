// The schema wired into the request and fetch flows, in-process (README "The origin side" and "The response cache"): the
// rewritten document goes upstream while the registry keeps the client's, answers are stripped
// before storing and serving, `cache.types` decides TTL and scope, and the tag header is stored.

@testable import BreakwaterCore
import Testing

struct SchemaFlowTests {
    /// Selects neither `__typename` nor `id`.
    static let document = "query GetLaunch($id: ID!) { launch(id: $id) { site rocket { name } } }"
    static let digest = FlowFixture.hasher.sha256(document)
    static let client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
    /// What the origin answers to the rewritten document.
    static let upstreamAnswer =
        #"{"data":{"launch":{"__bw_typename":"Launch","__bw_id":"1","site":"KSC","rocket":{"__bw_typename":"Rocket","#
        + #""__bw_id":"falcon9","name":"Falcon 9"}}}}"#

    private func fixture(_ configure: @escaping (inout Configuration) -> Void = { _ in }) -> FlowFixture {
        let rewrites = DocumentRewrites(capacity: 10)
        rewrites.install(SchemaFixtures.schema, keys: [:])
        return FlowFixture(configure: configure, rewrites: rewrites)
    }

    private func missPlan(_ fixture: FlowFixture, headers: HTTPHeaders = [:]) throws -> FetchPlan {
        var (flow, step) = fixture.start(FlowFixture.register(Self.document))
        fixture.perform(flow.takeEffects())
        if case .fetch(let plan) = step { return plan }
        return try #require(step.joinedPlan, "\(step)")
    }

    private func key(_ plan: FetchPlan) throws -> CacheKey { try #require(plan.key) }

    private func fetch(_ fixture: FlowFixture, _ plan: FetchPlan, answer: String = upstreamAnswer, status: Int = 200)
        -> FetchOutcome?
    {
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        return flow.originAnswered(FlowFixture.answer(answer, status: status)).outcome
    }

    @Test func theRewrittenDocumentGoesUpstreamAndTheRegistryKeepsTheClients() throws {
        let fixture = fixture()
        let plan = try missPlan(fixture)
        #expect(plan.operation.isRewritten)
        let body = String(decoding: plan.operation.origin.body, as: UTF8.self)
        #expect(body.contains("__bw_typename: __typename __bw_id: id"), "\(body)")
        #expect(fixture.registry.document(for: Self.digest) == Self.document)
        #expect(plan.operation.document.text == Self.document)
    }

    @Test func withoutASchemaTheDocumentGoesAsSent() throws {
        let fixture = FlowFixture(rewrites: DocumentRewrites(capacity: 10))
        let plan = try missPlan(fixture)
        #expect(!plan.operation.isRewritten)
        #expect(!String(decoding: plan.operation.origin.body, as: UTF8.self).contains("__bw_"))
    }

    /// A query under a TTL-0 rule is stored nowhere: it goes upstream as the client wrote it, and
    /// its answer (holding no reserved member) is relayed as the origin sent it.
    @Test func aQueryUnderATTLZeroRuleGoesAsWrittenAndItsAnswerAsSent() throws {
        let fixture = fixture { $0.cache.rules = [.init(operation: "GetLaunch", ttl: .zero)] }
        let plan = try missPlan(fixture)
        #expect(plan.bypass == .zeroTTL)
        #expect(!plan.operation.isRewritten)
        #expect(!String(decoding: plan.operation.origin.body, as: UTF8.self).contains("__bw_"))
        let answer = #"{"data":{"launch":{"site":"KSC","rocket":{"name":"Falcon 9"}}}}"#
        let reply = try #require(fetch(fixture, plan, answer: answer)).reply(for: Self.client)
        #expect(reply.bypassReason == .zeroTTL)
        #expect(String(decoding: reply.response.completeBody, as: UTF8.self) == answer)
    }

    /// Unless a type is per-user (its answers are read for their types even when stored
    /// nowhere), or the operation is a mutation (its answer's entities purge what it changed).
    @Test func aTTLZeroRuleKeepsTheRewriteForPerUserTypesAndMutations() throws {
        let perUser = fixture {
            $0.cache.rules = [.init(operation: "GetLaunch", ttl: .zero)]
            $0.cache.types = ["User": .init(scope: .perUser)]
        }
        #expect(try missPlan(perUser).operation.isRewritten)
        let fixture = fixture { $0.cache.rules = [.init(operation: "Book", ttl: .zero)] }
        let mutation = "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success launches { isBooked } } }"
        let (_, step) = fixture.start(FlowFixture.post(#"{"query":"\#(mutation)","variables":{"ids":["1"]}}"#))
        guard case .fetch(let plan) = step else { Issue.record("\(step)"); return }
        #expect(plan.operation.isRewritten)
    }

    @Test func theAnswerIsStrippedBeforeItIsStoredAndTaggedByTheEntitiesItHolds() throws {
        let fixture = fixture()
        let plan = try missPlan(fixture)
        let reply = try #require(fetch(fixture, plan)).reply(for: Self.client)
        let expected = #"{"data":{"launch":{"site":"KSC","rocket":{"name":"Falcon 9"}}}}"#
        #expect(String(decoding: reply.response.completeBody, as: UTF8.self) == expected)
        let entry = try #require(fixture.store.lookup(try key(plan), now: fixture.clock.now).entry)
        #expect(String(decoding: entry.body, as: UTF8.self) == expected)
        #expect(entry.tags == ["Launch", "Launch:1", "Rocket", "Rocket:falcon9"])
    }

    @Test func aBypassedAnswerIsStrippedToo() throws {
        let fixture = fixture()
        let plan = try missPlan(fixture)
        let withErrors = #"{"data":{"launch":{"__bw_typename":"Launch","__bw_id":"1","site":null,"rocket":null}},"#
            + #""errors":[{"message":"site failed"}]}"#
        let reply = try #require(fetch(fixture, plan, answer: withErrors)).reply(for: Self.client)
        #expect(reply.bypassReason == .graphQLErrors)
        #expect(
            String(decoding: reply.response.completeBody, as: UTF8.self)
                == #"{"data":{"launch":{"site":null,"rocket":null}},"errors":[{"message":"site failed"}]}"#)
    }

    @Test func aServerErrorWithPartialDataIsStrippedBeforeItIsRelayed() throws {
        let fixture = fixture()
        let plan = try missPlan(fixture)
        let body = #"{"data":{"launch":{"__bw_typename":"Launch","__bw_id":"1","site":null}},"errors":[{"message":"db"}]}"#
        let reply = try #require(fetch(fixture, plan, answer: body, status: 500)).reply(for: Self.client)
        #expect(reply.response.status == 500)
        #expect(
            String(decoding: reply.response.completeBody, as: UTF8.self)
                == #"{"data":{"launch":{"site":null}},"errors":[{"message":"db"}]}"#)
    }

    @Test func entityTagsOffStoresNoTags() throws {
        let fixture = fixture { $0.cache.entityTags = .off }
        let plan = try missPlan(fixture)
        _ = fetch(fixture, plan)
        #expect(fixture.store.lookup(try key(plan), now: fixture.clock.now).entry?.tags == [])
    }

    @Test func aRewrittenMutationPurgesTheEntitiesItNames() throws {
        let fixture = fixture()
        let mutation = "mutation Book($ids: [ID]!) { bookTrips(launchIds: $ids) { success launches { isBooked } } }"
        let (_, step) = fixture.start(FlowFixture.post(#"{"query":"\#(mutation)","variables":{"ids":["1"]}}"#))
        guard case .fetch(let plan) = step else { Issue.record("\(step)"); return }
        #expect(plan.operation.isRewritten)
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        let answer = #"{"data":{"bookTrips":{"__bw_typename":"TripUpdateResponse","success":true,"#
            + #""launches":[{"__bw_typename":"Launch","__bw_id":"1","isBooked":true}]}}}"#
        let reply = try #require(flow.originAnswered(FlowFixture.answer(answer)).outcome).reply(for: Self.client)
        #expect(flow.takeEffects() == [.purgeEntities(["Launch:1"])])
        #expect(
            String(decoding: reply.response.completeBody, as: UTF8.self)
                == #"{"data":{"bookTrips":{"success":true,"launches":[{"isBooked":true}]}}}"#)
    }

    // MARK: cache.types

    @Test func theEntryTTLIsTheSmallestOfTheOperationsAndTheTypesPresent() throws {
        let fixture = fixture {
            $0.cache.types = ["Rocket": .init(ttl: .seconds(7)), "Launch": .init(ttl: .seconds(20)), "User": .init(ttl: .seconds(1))]
        }
        let plan = try missPlan(fixture)
        _ = fetch(fixture, plan)
        #expect(fixture.store.lookup(try key(plan), now: fixture.clock.now).entry?.ttl == .seconds(7))
    }

    @Test func aTypeWithTTLZeroMakesTheAnswerUncacheable() throws {
        let fixture = fixture { $0.cache.types = ["Rocket": .init(ttl: .zero)] }
        let plan = try missPlan(fixture)
        let reply = try #require(fetch(fixture, plan)).reply(for: Self.client)
        #expect(reply.cache == .bypass)
        #expect(reply.bypassReason == .typeTTL)
    }

    @Test func aPerUserTypeBypassesTheSharedEntryThenTheOperationBypassesTheCache() throws {
        let fixture = fixture { $0.cache.types = ["Rocket": .init(scope: .perUser)] }
        let shared = try missPlan(fixture)
        #expect(!shared.isPerUser)
        let first = try #require(fetch(fixture, shared)).reply(for: Self.client)
        #expect(first.bypassReason == .perUserType)
        #expect(AnswerSharing(try #require(fetch(fixture, shared))) == .fetcherOnly(remember: true))
        #expect(fixture.store.statistics.entries == 0)

        // The operation is now known to answer a per-user type: no key, no lookup, no
        // coalescing (an anonymous "per-user" entry would be shared by every anonymous client).
        let (_, step) = fixture.start(FlowFixture.hashedGET(Self.digest))
        guard case .fetch(let alone) = step else { Issue.record("\(step)"); return }
        #expect(alone.key == nil && alone.bypass == .perUserType)
        let second = try #require(fetch(fixture, alone)).reply(for: Self.client)
        #expect(second.cache == .bypass)
        #expect(second.response.headers["Cache-Control"] == "private, no-store")
        #expect(fixture.store.statistics.entries == 0)
        // A request with credentials still never touches the cache (no per-user rule).
        let (_, privateStep) = fixture.start(FlowFixture.hashedGET(Self.digest, headers: ["Authorization": "ada"]))
        guard case .fetch(let plan) = privateStep else { Issue.record("\(privateStep)"); return }
        #expect(plan.bypass == .privateRequest)
    }

    // MARK: cache.tag_header

    @Test func theTagHeaderIsStoredWithTheEntryAndSentOnMissAndHit() throws {
        let fixture = fixture { $0.cache.tagHeader = "xkey" }
        let plan = try missPlan(fixture)
        let miss = try #require(fetch(fixture, plan)).reply(for: Self.client)
        let expected = "op:GetLaunch hash:\(Self.digest.hex) Launch Rocket Launch:1 Rocket:falcon9"
        // Per-request lines are in `headers`, the entry's own (the tag header among them) prebuilt.
        func xkey(_ response: HTTPResponse) -> String? { response.headerValue("xkey") }
        #expect(xkey(miss.response) == expected)
        let entry = try #require(fixture.store.lookup(try key(plan), now: fixture.clock.now).entry)
        #expect(entry.extraHeaders.filter { $0.name == "xkey" }.map(\.value) == [expected])
        let hit = ClientAnswer.fromEntry(entry, age: .seconds(1), isFresh: true, client: Self.client)
        #expect(xkey(hit) == expected)
        #expect(hit.headers.values(of: "xkey").isEmpty, "the tag header is one of the prebuilt lines, not added per hit")
    }
}

struct TagHeaderTests {
    static let digest = SHA256Digest(hex: String(repeating: "ab", count: 32))!

    @Test func cacheTagIsCommaSeparatedTheOthersSpaceSeparated() throws {
        let tags = ["Launch", "Launch:1"]
        #expect(
            TagHeader(configured: "Cache-Tag")?.value(operationName: "Q", digest: Self.digest, tags: tags)
                == "op:Q,hash:\(Self.digest.hex),Launch,Launch:1")
        #expect(
            TagHeader(configured: "Surrogate-Key")?.value(operationName: nil, digest: Self.digest, tags: tags)
                == "hash:\(Self.digest.hex) Launch Launch:1")
        #expect(TagHeader(configured: "") == nil)
    }

    @Test func tagsTheHeaderCannotCarryAreLeftOutAndTheValueIsBounded() throws {
        let header = try #require(TagHeader(configured: "xkey"))
        let value = header.value(operationName: "Q", digest: Self.digest, tags: ["City:New York", "City:a,b", "City:ok"])
        #expect(value == "op:Q hash:\(Self.digest.hex) City:ok")
        let many = (0..<5_000).map { "Launch:\($0)" } + ["Launch"]
        let bounded = header.value(operationName: "Q", digest: Self.digest, tags: many)
        #expect(bounded.utf8.count <= TagHeader.maxValueBytes)
        #expect(bounded.hasPrefix("op:Q hash:\(Self.digest.hex) Launch Launch:"), "type tags come before entities")
    }

    @Test(arguments: [
        "City:a\u{85}b", "City:Zürich", "City:\u{7F}", "City:a\tb", "City:\u{1F}", "City:東京", "City:\u{A0}",
    ])
    func tagsWithAByteOutsidePrintableASCIIAreLeftOut(tag: String) throws {
        let header = try #require(TagHeader(configured: "Surrogate-Key"))
        let value = header.value(operationName: "Q\u{85}", digest: Self.digest, tags: [tag, "City:~!#$%&'*+-.^_`|"])
        #expect(value == "hash:\(Self.digest.hex) City:~!#$%&'*+-.^_`|")
        #expect(value.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }, "printable ASCII and the separator only")
    }

    @Test func perUserEntriesCarryNoTagHeader() throws {
        let header = try #require(TagHeader(configured: "xkey"))
        #expect(header.field(for: ("Q", Self.digest, ["Launch"]), isPerUser: true) == nil)
        #expect(header.field(for: ("Q", Self.digest, ["Launch"]), isPerUser: false)?.name == "xkey")
    }
}

struct DocumentRewritesTests {
    static let document = "{ launch(id: 1) { site } }"
    static let digest = FlowFixture.hasher.sha256(document)

    @Test func aNewSchemaForgetsEveryRewriteAndNoneSendsDocumentsAsTheyAre() throws {
        let rewrites = DocumentRewrites(capacity: 4)
        #expect(rewrites.upstreamText(for: Self.digest, text: Self.document) == nil, "no schema yet")
        rewrites.install(SchemaFixtures.schema, keys: [:])
        let rewritten = try #require(rewrites.upstreamText(for: Self.digest, text: Self.document))
        #expect(rewritten.contains("__bw_id: id"))
        // The rewrite is remembered by hash: the text passed later is not looked at again.
        #expect(rewrites.upstreamText(for: Self.digest, text: "not even GraphQL") == rewritten)
        rewrites.install(nil, keys: [:])
        #expect(rewrites.upstreamText(for: Self.digest, text: Self.document) == nil)
    }

    @Test func keyFieldsComeFromTheTypesSettings() throws {
        let rewrites = DocumentRewrites(capacity: 4)
        rewrites.install(SchemaFixtures.schema, keys: ["Launch": ["site"]])
        let rewritten = try #require(rewrites.upstreamText(for: Self.digest, text: Self.document))
        #expect(rewritten.contains("__bw_site__String: site"), "\(rewritten)")
        #expect(!rewritten.contains("__bw_id"))
    }

    @Test func anUnparsableDocumentIsSentAsItIs() {
        let rewrites = DocumentRewrites(capacity: 4)
        rewrites.install(SchemaFixtures.schema, keys: [:])
        #expect(rewrites.upstreamText(for: Self.digest, text: "{ launch(") == nil)
    }
}

/// Entries stored while a schema was expected but unknown (or lacking a field) carry only the
/// tags the client selected: every entity purge reaches them too, they stay out of the fleet
/// tier (and are never served from it), and the schema's arrival drops them.
struct UncheckedEntryTests {
    static func fixture(_ rewrites: DocumentRewrites, expectsSchema: Bool = true) -> FlowFixture {
        FlowFixture(sharesResponses: true, rewrites: rewrites, expectsSchema: expectsSchema)
    }

    static func store(
        _ fixture: FlowFixture, answer: String = #"{"data":{"launch":{"id":"1","site":"KSC"}}}"#, id: String = "1"
    ) throws -> (CacheEntry, [FetchFlow.Effect]) {
        let (_, step) = fixture.start(FlowFixture.register(id: id))
        let plan = try #require(step.joinedPlan)
        var flow = FetchFlow(plan: plan, environment: fixture.environment)
        _ = flow.start()
        _ = flow.tierLookedUp(nil, purges: FleetPurgeCount(0))
        _ = flow.leaseAnswered(true)
        _ = flow.originAnswered(FlowFixture.answer(answer))
        let key = try #require(plan.key)
        let entry = try #require(fixture.store.lookup(key, now: fixture.clock.now).entry)
        return (entry, flow.takeEffects())
    }

    @Test func anEntryStoredBeforeTheSchemaIsMarkedLocalAndReachedByEveryEntityPurge() throws {
        // A schema is expected but none is known yet.
        let fixture = Self.fixture(DocumentRewrites())
        let (entry, effects) = try Self.store(fixture, answer: #"{"data":{"launch":{"site":"KSC"}}}"#)
        #expect(entry.tags.contains(EntityTags.unchecked))
        #expect(!effects.contains { if case .storeInTier = $0 { true } else { false } }, "\(effects)")
        let purger = CachePurger(store: fixture.store, clock: fixture.clock)
        #expect(purger.purge(PurgeRequest(selector: .operation("Other"), soft: false)) == 0)
        #expect(purger.purge(PurgeRequest(selector: .tag("Launch:92"), soft: false)) == 1)
        #expect(fixture.store.lookup(entry.key, now: fixture.clock.now).entry == nil)
    }

    @Test func anotherProxysEntityPurgeReachesItToo() throws {
        let fixture = Self.fixture(DocumentRewrites())
        let (entry, _) = try Self.store(fixture, answer: #"{"data":{"launch":{"site":"KSC"}}}"#)
        CachePurger(store: fixture.store, clock: fixture.clock).applyRemote(PurgeRequest(selector: .tag("Rocket"), soft: false))
        #expect(fixture.store.lookup(entry.key, now: fixture.clock.now).entry == nil)
    }

    @Test func withTheSchemaOrWithoutOneExpectedNothingIsMarked() throws {
        let rewrites = DocumentRewrites()
        rewrites.install(
            try KnownSchema(sdl: "type Query { launch(id: ID!): Launch }\ntype Launch { id: ID! site: String }"), keys: [:])
        let (checked, effects) = try Self.store(Self.fixture(rewrites), answer: #"{"data":{"launch":{"id":"1","site":"KSC"}}}"#)
        #expect(!checked.tags.contains(EntityTags.unchecked))
        #expect(effects.contains { if case .storeInTier = $0 { true } else { false } })
        let (off, _) = try Self.store(Self.fixture(DocumentRewrites(), expectsSchema: false), answer: #"{"data":{"launch":{"site":"KSC"}}}"#)
        #expect(!off.tags.contains(EntityTags.unchecked))
    }

    @Test func theSchemaArrivingDropsOnlyTheAnswersStoredUnchecked() throws {
        let rewrites = DocumentRewrites()
        let fixture = Self.fixture(rewrites)
        let purger = CachePurger(store: fixture.store, clock: fixture.clock)
        let unchecked = try ["1", "2", "3"].map { try Self.store(fixture, id: $0).0 }
        #expect(unchecked.allSatisfy { $0.tags.contains(EntityTags.unchecked) })
        // No schema yet: nothing to drop, and nothing is.
        #expect(purger.schemaChanged(schemaKnown: false) == nil)
        #expect(unchecked.allSatisfy { fixture.store.lookup($0.key, now: fixture.clock.now).entry != nil })

        fixture.clock.advance(by: .seconds(2))
        rewrites.install(SchemaFixtures.schema, keys: [:])
        // Each loop forgets the operations it resolved before the schema (ProxyHandler.schemaChanged).
        fixture.memo.removeAll()
        let (checked, _) = try Self.store(fixture, id: "4")
        #expect(!checked.tags.contains(EntityTags.unchecked))

        #expect(purger.schemaChanged(schemaKnown: true) == 3)
        for entry in unchecked {
            #expect(fixture.store.lookup(entry.key, now: fixture.clock.now).entry == nil, "\(entry.tags)")
        }
        #expect(fixture.store.lookup(checked.key, now: fixture.clock.now).entry != nil)
        // The next request of a dropped one is fetched with the checked document and stored checked.
        let (again, _) = try Self.store(fixture, id: "1")
        #expect(again.key == unchecked[0].key)
        #expect(!again.tags.contains(EntityTags.unchecked))
        // A later schema change drops nothing more: nothing unchecked is left.
        #expect(purger.schemaChanged(schemaKnown: true) == 0)
    }

    @Test func aFleetEntryStoredUncheckedIsAMissFetchedAgainAndOverwritten() throws {
        // Written to the tier by a proxy that had no schema yet (as no proxy here does, but anyone
        // who can write to Redis may).
        let (written, _) = try Self.store(Self.fixture(DocumentRewrites()))
        #expect(written.tags.contains(EntityTags.unchecked))
        let rewrites = DocumentRewrites()
        rewrites.install(SchemaFixtures.schema, keys: [:])
        let (good, _) = try Self.store(Self.fixture(rewrites))

        let here = Self.fixture(rewrites)
        let plan = try #require(here.start(FlowFixture.register()).1.joinedPlan)
        #expect(plan.key == written.key)
        var flow = FetchFlow(plan: plan, environment: here.environment)
        guard case .lookupTier = flow.start() else { return #expect(Bool(false), "the tier is asked first") }
        let step = flow.tierLookedUp(written, purges: FleetPurgeCount(0))
        guard case .acquireLease = step else { return #expect(Bool(false), "served from the tier: \(step)") }
        #expect(here.store.lookup(written.key, now: here.clock.now).entry == nil, "not kept locally either")
        _ = flow.leaseAnswered(true)
        _ = flow.originAnswered(FlowFixture.answer())
        #expect(flow.takeEffects().contains(.storeInTier(written.key, unlessPurgedSince: FleetPurgeCount(0))), "the fetched answer overwrites it")

        // The same entry stored checked is a hit from the tier.
        let there = Self.fixture(rewrites)
        var shared = FetchFlow(plan: try #require(there.start(FlowFixture.register()).1.joinedPlan), environment: there.environment)
        _ = shared.start()
        guard case .fleetHit? = shared.tierLookedUp(good, purges: FleetPurgeCount(0)).outcome else {
            return #expect(Bool(false), "a checked entry is served from the tier")
        }
    }
}
