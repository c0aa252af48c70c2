// Whether an origin answer is stored, and for how long (README, "The response cache"): every
// refusal with its reason (errors before a TTL of 0), and the TTL precedence rule > s-maxage >
// max-age > default_ttl.

import BreakwaterCore
import Testing

struct CachePolicyStorageTests {
    static let okBody = #"{"data":{"launch":{"__typename":"Launch","id":"92","site":"KSC"}}}"#

    static func settings(honorOrigin: Bool = true, defaultTTL: Duration = .zero) -> Configuration.Cache {
        var settings = Configuration.Cache()
        settings.honorOriginCacheControl = honorOrigin
        settings.defaultTTL = defaultTTL
        settings.rules = [
            Configuration.CacheRule(operation: "GetLaunches", ttl: .seconds(30)),
            Configuration.CacheRule(operation: "GetLaunches", ttl: .seconds(99)),
            Configuration.CacheRule(operation: "Volatile", ttl: .zero),
        ]
        return settings
    }

    static func response(
        status: Int = 200, contentType: String? = "application/json",
        headers extra: [(String, String)] = [], body: String = okBody
    ) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let contentType { headers.add("Content-Type", contentType) }
        for (name, value) in extra { headers.add(name, value) }
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    // MARK: Refusals

    struct Refusal: Sendable, CustomTestStringConvertible {
        var label: String
        var response: HTTPResponse
        var operation: String? = "GetLaunches"
        var honorOrigin = true
        var reason: BypassReason
        var testDescription: String { label }
    }

    static let refusals: [Refusal] = [
        Refusal(label: "500", response: response(status: 500), reason: .originStatus),
        Refusal(label: "201", response: response(status: 201), reason: .originStatus),
        Refusal(
            label: "404 with JSON errors", response: response(status: 404, body: #"{"errors":[]}"#),
            reason: .originStatus),
        Refusal(label: "HTML", response: response(contentType: "text/html"), reason: .notJSON),
        Refusal(label: "no Content-Type", response: response(contentType: nil), reason: .notJSON),
        Refusal(label: "json-ish type", response: response(contentType: "application/jsonx"), reason: .notJSON),
        Refusal(label: "malformed body", response: response(body: #"{"data":"#), reason: .notJSON),
        Refusal(label: "empty body", response: response(body: ""), reason: .notJSON),
        Refusal(label: "array body", response: response(body: #"[{"data":{}}]"#), reason: .notJSON),
        Refusal(label: "errors", response: response(body: #"{"errors":[{"message":"boom"}]}"#), reason: .graphQLErrors),
        Refusal(
            label: "partial data with errors",
            response: response(body: #"{"data":{"a":1},"errors":[{"message":"half"}]}"#), reason: .graphQLErrors),
        Refusal(label: "empty errors", response: response(body: #"{"data":{},"errors":[]}"#), reason: .graphQLErrors),
        Refusal(label: "Set-Cookie", response: response(headers: [("set-cookie", "s=1")]), reason: .setCookie),
        Refusal(
            label: "no-store", response: response(headers: [("Cache-Control", "max-age=60, no-store")]),
            reason: .originNoStore),
        Refusal(
            label: "no-store, origin not honoured", response: response(headers: [("Cache-Control", "no-store")]),
            honorOrigin: false, reason: .originNoStore),
        Refusal(label: "private", response: response(headers: [("Cache-Control", "private")]), reason: .originPrivate),
        Refusal(
            label: "private on a second line",
            response: response(headers: [("Cache-Control", "public"), ("cache-control", "PRIVATE")]),
            honorOrigin: false, reason: .originPrivate),
        Refusal(label: "no rule, no lifetime, default 0", response: response(), operation: "Other", reason: .zeroTTL),
        Refusal(
            label: "rule with TTL 0 beats max-age", response: response(headers: [("Cache-Control", "max-age=60")]),
            operation: "Volatile", reason: .zeroTTL),
        Refusal(
            label: "max-age=0", response: response(headers: [("Cache-Control", "max-age=0")]), operation: nil,
            reason: .zeroTTL),
        // Errors are the reason whatever the TTL: checked before zero-ttl, without a rule too.
        Refusal(
            label: "errors, no rule, default 0", response: response(body: #"{"errors":[{"message":"boom"}]}"#),
            operation: "Other", reason: .graphQLErrors),
        Refusal(
            label: "errors after data, max-age=0",
            response: response(headers: [("Cache-Control", "max-age=0")], body: #"{"data":null,"errors":[]}"#),
            operation: nil, reason: .graphQLErrors),
        Refusal(
            label: "errors under a TTL-0 rule", response: response(body: #"{"errors":[{"message":"boom"}]}"#),
            operation: "Volatile", reason: .graphQLErrors),
        Refusal(
            label: "the word errors below the top level, default 0",
            response: response(body: #"{"data":{"errors":[1],"note":"\"errors\""}}"#), operation: "Other",
            reason: .zeroTTL),
        Refusal(
            label: "errors on a 500 stay origin-status, default 0",
            response: response(status: 500, body: #"{"errors":[]}"#), operation: "Other", reason: .originStatus),
        Refusal(
            label: "errors with Set-Cookie stay set-cookie",
            response: response(headers: [("Set-Cookie", "a=1")], body: #"{"errors":[]}"#), operation: "Other",
            reason: .setCookie),
    ]

    @Test(arguments: refusals)
    func refusesWithItsReason(_ refusal: Refusal) {
        let policy = CachePolicy(Self.settings(honorOrigin: refusal.honorOrigin))
        #expect(policy.storage(of: refusal.response, operationName: refusal.operation) == .doNotStore(refusal.reason))
    }

    @Test(arguments: [
        "application/json", "application/json; charset=utf-8", "Application/JSON",
        "application/graphql-response+json", " application/graphql-response+json ;charset=utf-8",
    ])
    func storesJSONMediaTypes(contentType: String) {
        let decision = CachePolicy(Self.settings()).storage(
            of: Self.response(contentType: contentType), operationName: "GetLaunches")
        #expect(
            decision == .store(ttl: .seconds(30), tags: ["Launch", "Launch:92"], basis: TTLBasis(originTTL: nil, types: ["Launch"])))
    }

    @Test func storesAnAnswerWithoutDataUntagged() {
        let decision = CachePolicy(Self.settings()).storage(
            of: Self.response(body: #"{"data":null}"#), operationName: "GetLaunches")
        #expect(decision == .store(ttl: .seconds(30), tags: [], basis: TTLBasis(originTTL: nil, types: [])))
    }

    @Test func bypassReasonsReadAsLogWords() {
        #expect(BypassReason.notAQuery.rawValue == "not-a-query")
        #expect(BypassReason.graphQLErrors.rawValue == "graphql-errors")
        #expect(BypassReason.zeroTTL.rawValue == "zero-ttl")
    }

    // MARK: TTL precedence

    struct Lifetime: Sendable, CustomTestStringConvertible {
        var label: String
        var operation: String?
        var cacheControl: [String]
        var honorOrigin = true
        var defaultTTL = Duration.zero
        var expected: Duration
        var testDescription: String { label }
    }

    static let lifetimes: [Lifetime] = [
        Lifetime(
            label: "rule beats origin", operation: "GetLaunches", cacheControl: ["s-maxage=5, max-age=10"],
            expected: .seconds(30)),
        Lifetime(label: "first rule wins", operation: "GetLaunches", cacheControl: [], expected: .seconds(30)),
        Lifetime(
            label: "rule match is exact", operation: "getlaunches", cacheControl: ["max-age=10"], expected: .seconds(10)
        ),
        Lifetime(
            label: "s-maxage beats max-age", operation: "Other", cacheControl: ["max-age=10, s-maxage=5"],
            expected: .seconds(5)),
        Lifetime(label: "max-age", operation: "Other", cacheControl: ["max-age=10"], expected: .seconds(10)),
        Lifetime(label: "anonymous operation", operation: nil, cacheControl: ["max-age=10"], expected: .seconds(10)),
        Lifetime(
            label: "default", operation: "Other", cacheControl: ["public"], defaultTTL: .seconds(7),
            expected: .seconds(7)),
        Lifetime(
            label: "origin ignored when not honoured", operation: "Other", cacheControl: ["s-maxage=5, max-age=10"],
            honorOrigin: false, defaultTTL: .seconds(7), expected: .seconds(7)),
        Lifetime(
            label: "origin ignored, default 0", operation: "Other", cacheControl: ["max-age=10"], honorOrigin: false,
            expected: .zero),
        Lifetime(
            label: "no-cache is 0", operation: "Other", cacheControl: ["no-cache, max-age=10"], defaultTTL: .seconds(7),
            expected: .zero),
        Lifetime(
            label: "rule beats no-cache", operation: "GetLaunches", cacheControl: ["no-cache"], expected: .seconds(30)),
        Lifetime(
            label: "no-cache ignored when not honoured", operation: "Other", cacheControl: ["no-cache"],
            honorOrigin: false,
            defaultTTL: .seconds(7), expected: .seconds(7)),
    ]

    @Test(arguments: lifetimes)
    func timeToLiveFollowsPrecedence(_ lifetime: Lifetime) {
        let policy = CachePolicy(Self.settings(honorOrigin: lifetime.honorOrigin, defaultTTL: lifetime.defaultTTL))
        let response = Self.response(headers: lifetime.cacheControl.map { ("Cache-Control", $0) })
        let decision = policy.storage(of: response, operationName: lifetime.operation)
        if lifetime.expected == .zero {
            #expect(decision == .doNotStore(.zeroTTL))
        } else {
            guard case .store(let ttl, let tags, let basis) = decision else {
                Issue.record("not stored: \(decision)")
                return
            }
            #expect(ttl == lifetime.expected)
            #expect(tags == ["Launch", "Launch:92"])
            // What the entry keeps gives the same TTL again under the same settings.
            #expect(policy.ttl(operationName: lifetime.operation, basis: basis, tags: tags) == lifetime.expected)
        }
    }
}
