// What a miss costs before the origin is asked: a TTL-0 rule skips key, lookup and coalescing;
// a plain POST body goes to the origin as the client sent it, anything else is written again.

@testable import BreakwaterCore
import Foundation
import Testing

@Suite struct MissFlowTests {
    private static func fixture() -> FlowFixture {
        FlowFixture { $0.cache.rules.append(.init(operation: "GetLive", ttl: .zero)) }
    }

    private static let live = "query GetLive($id: ID!) { launch(id: $id) { id site } }"

    @Test func aTTLZeroRuleFetchesWithoutAKeyAndSaysWhy() throws {
        let fixture = Self.fixture()
        let body = #"{"query":"\#(Self.live)","variables":{"id":"7"}}"#
        let (_, step) = fixture.start(FlowFixture.post(body))
        guard case .fetch(let plan) = step else {
            Issue.record("expected a fetch for this client alone, got \(step)")
            return
        }
        #expect(plan.key == nil)
        #expect(plan.bypass == .zeroTTL)
        // The answer is relayed BYPASS with the reason the storage checks give.
        var fetch = FetchFlow(plan: plan, environment: fixture.environment)
        guard case .bypassed(_, let reason)? = fetch.originAnswered(FlowFixture.answer()).outcome else {
            Issue.record("expected a bypassed outcome")
            return
        }
        #expect(reason == .zeroTTL)
        guard case .bypassed(_, let cookie)? = fetch.originAnswered(
            FlowFixture.answer(headers: ["Content-Type": "application/json", "Set-Cookie": "a=b"])).outcome
        else {
            Issue.record("expected a bypassed outcome")
            return
        }
        #expect(cookie == .setCookie)
        #expect(fixture.store.statistics.entries == 0)
    }

    @Test func aCachedOperationStillJoinsUnderItsKey() throws {
        let body = #"{"query":"\#(FlowFixture.launchDocument)","variables":{"id":"7"}}"#
        let plan = try #require(Self.fixture().start(FlowFixture.post(body)).1.joinedPlan)
        #expect(plan.key != nil)
    }

    @Test func aPlainPostBodyGoesToTheOriginAsItCame() throws {
        let body = "{ \"variables\": {\"b\":1, \"id\" : \"7\"}, \"operationName\": \"GetLive\",\n \"query\": \"\(Self.live)\" }"
        let (flow, _) = Self.fixture().start(FlowFixture.post(body))
        let origin = try #require(flow.operation?.origin)
        #expect(origin.method == "POST")
        #expect(origin.body == Array(body.utf8))
    }

    @Test(arguments: [
        #"{"query":"@Q@","extensions":{"persistedQuery":null}}"#,
        #"{"query":"@Q@","operationName":""}"#,
        #"{"query":"@Q@","unknown":1}"#,
        #"{"query":"@Q@","extensions":null}"#,
    ])
    func anyOtherBodyIsWrittenAgain(_ template: String) throws {
        let body = template.replacingOccurrences(of: "@Q@", with: Self.live)
        let (flow, _) = Self.fixture().start(FlowFixture.post(body))
        let origin = try #require(flow.operation?.origin)
        #expect(origin.body != Array(body.utf8))
        #expect(origin.body.starts(with: Array(#"{"query":"query GetLive"#.utf8)))
        #expect(!String(decoding: origin.body, as: UTF8.self).contains("extensions"))
    }

    @Test func thePlainMarkFollowsTheMembers() throws {
        func plain(_ json: String) throws -> Bool {
            try GraphQLRequestParser.parsePOST(body: Array(json.utf8)).isPlainPOST
        }
        #expect(try plain(#"{"query":"{ a }"}"#))
        #expect(try plain(#"{"query":"{ a }","operationName":null,"variables":null}"#))
        #expect(try plain(#"{"query":"{ a }","operationName":"A","variables":{"x":[1]}}"#))
        #expect(try !plain(#"{"query":"{ a }","doc_id":"1"}"#))
        #expect(try !plain(#"{"query":"{ a }","documentId":"sha256:00"}"#))
        #expect(try !plain(#"{"query":"","extensions":{"persistedQuery":{"version":1,"sha256Hash":"00"}}}"#))
    }
}
