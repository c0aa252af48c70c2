// The sharing rule as a property (docs/SECURITY.md "What is shared"): over thousands of random
// requests and origin answers on two proxies of a fleet, with coalescing, stale serving, lone
// fetches and the fleet tier, no client ever receives an answer made for another request's
// headers, nor another request's answer that the storage decision did not let be shared.

@testable import BreakwaterCore
import BreakwaterFixtures
import Foundation
import Testing

struct SharingPropertyTests {
    static let launchDocument = "query GetLaunch($id: ID!) { launch(id: $id) { __typename id site } }"
    static let viewerDocument = "query Viewer { me { __typename id email } }"
    /// A field the schema lacks: never checked, so its answers' types are unseen.
    static let oddDocument = #"query Odd { launch(id: "1") { site nosuchfield } }"#
    static let schema = """
        type Query { launch(id: ID!): Launch me: User }
        type Launch { id: ID! site: String }
        type User { id: ID! email: String }
        """

    /// The two configurations: no per-type policy and no schema; `User` per-user with a schema.
    enum Setup: CaseIterable, Sendable {
        case plain, perUserType
    }

    static func makeProxy(_ setup: Setup) -> FlowFixture {
        var rewrites: DocumentRewrites?
        if setup == .perUserType {
            rewrites = DocumentRewrites()
            rewrites?.install(try! KnownSchema(sdl: schema), keys: [:])
        }
        return FlowFixture(
            configure: { configuration in
                // Lifetimes come from the origin, so some answers are zero-TTL.
                configuration.cache.rules = []
                if setup == .perUserType { configuration.cache.types = ["User": .init(scope: .perUser)] }
            }, sharesResponses: true, rewrites: rewrites)
    }

    /// A random request: one of a few operations, with or without `Accept-Language`,
    /// credentials, and a `Connection` header that scopes some of them to the hop.
    static func makeRequest(_ setup: Setup, random: inout SplitMix64) -> SharingSimulation.Request {
        let operations = setup == .perUserType ? ["GetLaunch", "Viewer", "Odd"] : ["GetLaunch", "Viewer"]
        let operationName = operations[random.next(below: operations.count)]
        let id = random.next(below: 2) + 1
        let (document, variables): (String, String) =
            switch operationName {
            case "GetLaunch": (launchDocument, #"{"id":"\#(id)"}"#)
            case "Viewer": (viewerDocument, "{}")
            default: (oddDocument, "{}")
            }
        var headers: HTTPHeaders = [:]
        var scoped: [String] = []
        if let language = [nil, "fr", "de"][random.next(below: 3)] {
            headers.add("Accept-Language", language)
            if random.next(below: 3) == 0 { scoped.append("Accept-Language") }
        }
        if random.next(below: 5) == 0 {
            headers.add("Authorization", ["Bearer a", "Bearer b"][random.next(below: 2)])
            if random.next(below: 3) == 0 { scoped.append("authorization") }
        }
        if random.next(below: 10) == 0 { headers.add("Cookie", "session=\(random.next(below: 2))") }
        if !scoped.isEmpty || random.next(below: 4) == 0 { headers.add("Connection", (["keep-alive"] + scoped).joined(separator: ", ")) }
        var body: [UInt8] = Array(#"{"query":"#.utf8)
        JSONWriter.quotedString(document, into: &body)
        body += Array(#","operationName":"\#(operationName)","variables":\#(variables)}"#.utf8)
        return SharingSimulation.Request(
            http: FlowFixture.post(String(decoding: body, as: UTF8.self), headers: headers),
            operationName: operationName, variables: variables)
    }

    /// Whether an answer of `fetch` may reach a request other than the one it was fetched for.
    static func mayBeShared(_ fetch: SharingSimulation.Fetch, setup: Setup) -> Bool {
        guard fetch.kind == .publicTTL || fetch.kind == .zeroTTL else { return false }
        // With User per-user, a Viewer answer holds a User and an Odd one may: shared only from
        // a per-user entry, whose key holds the private headers' values.
        return setup == .plain || fetch.operationName == "GetLaunch" || fetch.isPerUser
    }

    /// The fields a request carries end to end, worked out here on their own (RFC 9110 §7.6.1):
    /// every field the `Connection` fields name is dropped.
    static func endToEnd(_ headers: HTTPHeaders) -> HTTPHeaders {
        let named = Set(
            headers.fields.filter { $0.name.lowercased() == "connection" }
                .flatMap { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } })
        return HTTPHeaders(headers.fields.filter { $0.name.lowercased() == "connection" || !named.contains($0.name.lowercased()) })
    }

    @Test(arguments: Setup.allCases)
    func noClientEverGetsAnAnswerThatWasNotMadeForItOrMayNotBeShared(_ setup: Setup) {
        var checked = 0, sharedAnswers = 0
        for seed in 1...40 {
            var random = SplitMix64(seed: UInt64(seed))
            let simulation = SharingSimulation(proxies: [Self.makeProxy(setup), Self.makeProxy(setup)], seed: UInt64(seed))
            for _ in 0..<400 {
                switch random.next(below: 10) {
                case 0..<6: simulation.arrive(Self.makeRequest(setup, random: &random), at: random.next(below: 2))
                case 6..<9: simulation.answerOne()
                default: simulation.advanceClocks(by: .seconds(random.next(below: 12)))
                }
            }
            while simulation.pendingAtOrigin > 0 { simulation.answerOne() }

            // Every request is answered exactly once: no waiter is lost or answered twice.
            var answered = [Int](repeating: 0, count: simulation.requests.count)
            for (request, reply) in simulation.answers {
                answered[request] += 1
                guard let tag = SharingSimulation.fetchTag(in: reply.response.completeBody) else { continue }
                let fetch = simulation.fetches[tag]
                let asked = simulation.requests[request]
                let endToEnd = Self.endToEnd(asked.http.headers)
                // Made for what this request asked, with exactly the headers it sent end to end.
                #expect(fetch.operationName == asked.operationName, "seed \(seed), request \(request)")
                #expect(fetch.variables == asked.variables, "seed \(seed), request \(request)")
                for name in ["Accept-Language", "Authorization", "Cookie"] {
                    #expect(
                        fetch.upstream.values(of: name) == endToEnd.values(of: name),
                        "seed \(seed), request \(request): \(name) of fetch \(tag)")
                }
                // Another request's answer only when it may be shared.
                if fetch.request != request {
                    sharedAnswers += 1
                    #expect(
                        Self.mayBeShared(fetch, setup: setup),
                        "seed \(seed), request \(request) got fetch \(tag) (\(fetch.kind)) of request \(fetch.request)")
                }
                checked += 1
            }
            #expect(answered.allSatisfy { $0 == 1 }, "seed \(seed): \(answered.enumerated().filter { $0.1 != 1 })")
        }
        // The traces exercise sharing, not only lone fetches.
        #expect(checked > 4_000 && sharedAnswers > 500, "checked \(checked), shared \(sharedAnswers)")
    }
}
