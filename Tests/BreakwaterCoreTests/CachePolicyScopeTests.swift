// Whose entry a request may use (docs/SECURITY.md): one user's answer must never reach another.

import BreakwaterCore
import Testing

struct CachePolicyScopeTests {
    let policy: CachePolicy = {
        var settings = Configuration.Cache()
        settings.privateHeaders = ["Authorization", "Cookie"]
        settings.rules = [
            Configuration.CacheRule(operation: "GetLaunches", ttl: .seconds(30)),
            Configuration.CacheRule(operation: "Me", ttl: .seconds(60), scope: .perUser),
        ]
        return CachePolicy(settings)
    }()

    func material(_ headers: HTTPHeaders, operation: String = "Me") -> [UInt8]? {
        guard
            case .perUser(let material) = policy.scope(operationName: operation, kind: .query, requestHeaders: headers)
        else { return nil }
        return material
    }

    @Test(arguments: [OperationKind.mutation, .subscription])
    func onlyQueriesUseTheCache(kind: OperationKind) {
        #expect(policy.scope(operationName: "GetLaunches", kind: kind, requestHeaders: [:]) == .bypass(.notAQuery))
        #expect(
            policy.scope(operationName: "Me", kind: kind, requestHeaders: ["Authorization": "a"]) == .bypass(.notAQuery)
        )
    }

    @Test func queryWithoutPrivateHeadersIsShared() {
        let headers: HTTPHeaders = ["Accept": "application/json", "X-Request-Id": "r1"]
        #expect(policy.scope(operationName: "GetLaunches", kind: .query, requestHeaders: headers) == .shared)
        #expect(policy.scope(operationName: nil, kind: .query, requestHeaders: headers) == .shared)
    }

    @Test(
        arguments: [
            ["Authorization": "Bearer a"], ["authorization": "Bearer a"], ["COOKIE": "s=1"], ["Authorization": ""],
        ] as [HTTPHeaders])
    func privateHeaderBypassesWithoutPerUserRule(headers: HTTPHeaders) {
        #expect(
            policy.scope(operationName: "GetLaunches", kind: .query, requestHeaders: headers)
                == .bypass(.privateRequest))
        #expect(policy.scope(operationName: nil, kind: .query, requestHeaders: headers) == .bypass(.privateRequest))
    }

    @Test func perUserRuleKeysByCredentials() {
        let alice = material(["Authorization": "Bearer alice"])
        let bob = material(["Authorization": "Bearer bob"])
        #expect(alice != nil)
        #expect(alice != bob)
        #expect(alice == material(["authorization": "Bearer alice"]))
        #expect(alice != material(["Authorization": "Bearer alice", "Cookie": "s=1"]))
    }

    @Test func perUserMaterialTellsAbsentFromEmpty() {
        let anonymous = material([:])
        #expect(anonymous != nil)
        #expect(anonymous != material(["Authorization": ""]))
        #expect(material(["Authorization": ""]) != material(["Cookie": ""]))
        #expect(anonymous == material(["Accept": "application/json"]))
    }

    @Test func perUserMaterialHasNoAmbiguousBoundaries() {
        #expect(material(["Authorization": "a", "Cookie": "bc"]) != material(["Authorization": "ab", "Cookie": "c"]))
        let twoCookies = HTTPHeaders([(name: "Cookie", value: "a"), (name: "cookie", value: "b")])
        #expect(material(twoCookies) != material(["Cookie": "ab"]))
        #expect(
            material(twoCookies) != material(HTTPHeaders([(name: "Cookie", value: "b"), (name: "Cookie", value: "a")])))
    }

    @Test func ruleIsTheFirstExactMatch() {
        #expect(policy.rule(for: "Me")?.scope == .perUser)
        #expect(policy.rule(for: "me") == nil)
        #expect(policy.rule(for: nil) == nil)
        #expect(policy.rule(for: "GetLaunches")?.ttl == .seconds(30))
    }
}
