// The same protocol suite over HTTP/1.1 and over HTTP/2 (docs/reference/client-protocol.md,
// "HTTP/2": every rule applies per stream): two proxies with one configuration, one asked over HTTP/1.1 and one over prior-knowledge
// h2c, the same requests in the same order; statuses, headers and bodies must match.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized, .enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
struct HTTP2DifferentialTests {
    static let yaml = """
        server:
          max_body_bytes: 16KiB
          cors:
            allow_origins: ["https://app.example.com"]
            allow_headers: [Content-Type, Authorization]
            max_age: 10m
        persisted_queries:
          store: ""
        cache:
          rules:
            - operation: GetLaunch
              ttl: 1h
            - operation: GetLaunches
              ttl: 1h
        """
    static let launch = #"query GetLaunch { launch(id: "7") { id site mission { name } } }"#
    /// Twenty launches: over the 1 KiB below which nothing is gzipped.
    static let launches = "query GetLaunches { launches(pageSize: 20) { cursor launches { id site mission { name } } } }"
    static let cors = [("Origin", "https://app.example.com")]

    /// One request of the suite; `make` may read the answers of the steps before it (an ETag).
    struct Step: Sendable {
        let name: String
        let make: @Sendable (_ earlier: [String: HTTPClientResponse]) -> (method: String, target: String, headers: [(String, String)], body: String)
    }

    static let steps: [Step] = [
        Step(name: "APQ hashed GET before registration") { _ in
            ("GET", APQ.hashedGET(launch, operationName: "GetLaunch"), [], "")
        },
        Step(name: "APQ registering POST") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json")], APQ.registeringPOST(launch, operationName: "GetLaunch"))
        },
        Step(name: "APQ hashed GET hit") { _ in ("GET", APQ.hashedGET(launch, operationName: "GetLaunch"), [], "") },
        Step(name: "If-None-Match on the hit") { earlier in
            let etag = earlier["APQ hashed GET hit"]?.header("ETag") ?? "\"missing\""
            return ("GET", APQ.hashedGET(launch, operationName: "GetLaunch"), [("If-None-Match", etag)], "")
        },
        Step(name: "APQ hash-only POST of an unknown hash") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json")], APQ.hashOnlyPOST("{ nothing }", operationName: nil))
        },
        Step(name: "plain POST") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json")], #"{"query":"{ launch(id: \"3\") { id site } }"}"#)
        },
        Step(name: "gzip miss") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json"), ("Accept-Encoding", "gzip")],
             #"{"query":\#(APQ.jsonString(launches))}"#)
        },
        Step(name: "gzip hit") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json"), ("Accept-Encoding", "gzip")],
             #"{"query":\#(APQ.jsonString(launches))}"#)
        },
        Step(name: "batch") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json")],
             #"[{"query":\#(APQ.jsonString(launch))},{"query":"{ launch(id: \"2\") { id } }"}]"#)
        },
        Step(name: "URI past max_uri_bytes (414)") { _ in
            // One byte over the limit: HTTP/1.1 stops reading the target there, so its message
            // names limit + 1 bytes whatever the length; h2 has the whole `:path` and names it.
            ("GET", "/graphql?query=" + String(repeating: "a", count: 32_769 - "/graphql?query=".utf8.count), [], "")
        },
        Step(name: "body past max_body_bytes (413)") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json")],
             #"{"query":"{ launch(id: \"1\") { id } }","pad":""# + String(repeating: "x", count: 20_000) + #""}"#)
        },
        Step(name: "CORS preflight") { _ in
            ("OPTIONS", "/graphql", cors + [("Access-Control-Request-Method", "POST")], "")
        },
        Step(name: "CORS on a POST") { _ in
            ("POST", "/graphql", cors + [("Content-Type", "application/json")], #"{"query":\#(APQ.jsonString(launch))}"#)
        },
        Step(name: "X-Request-Id kept") { _ in
            ("POST", "/graphql", [("Content-Type", "application/json"), ("X-Request-Id", "3f2a-01:z")],
             #"{"query":\#(APQ.jsonString(launch))}"#)
        },
        Step(name: "malformed JSON (400)") { _ in ("POST", "/graphql", [("Content-Type", "application/json")], "{") },
        Step(name: "unknown path (404)") { _ in ("GET", "/nowhere", [], "") },
    ]

    /// Runs every step with `client`, in order.
    func answers(_ client: some HTTPRequestSending) throws -> [String: HTTPClientResponse] {
        var answers: [String: HTTPClientResponse] = [:]
        for step in Self.steps {
            let request = step.make(answers)
            answers[step.name] = try client.send(
                method: request.method, target: request.target, headers: request.headers, body: Array(request.body.utf8),
                timeout: .seconds(20))
        }
        return answers
    }

    /// Header fields as names in lower case with their values, sorted; values that differ between
    /// any two answers (Date, Age, a generated X-Request-Id) as "*", and HTTP/1.1's
    /// connection-specific fields left out (RFC 9113 8.2.2).
    static func comparable(_ response: HTTPClientResponse, requestID: Bool) -> [String] {
        response.headers.compactMap { field -> String? in
            let name = field.name.lowercased()
            if ["connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade"].contains(name) { return nil }
            if ["date", "age"].contains(name) || (name == "x-request-id" && !requestID) { return "\(name): *" }
            return "\(name): \(field.value)"
        }.sorted()
    }

    @Test func theProtocolSuiteAnswersAlikeOverHTTP1AndH2() throws {
        let origin = try DemoOriginProcess()
        let overHTTP1 = try ProxyProcess(origin: origin.url, yaml: Self.yaml)
        let overH2 = try ProxyProcess(origin: origin.url, yaml: Self.yaml)
        let http1 = try answers(overHTTP1.client)
        let h2 = try answers(HTTP2FrameClient(port: overH2.port))
        for step in Self.steps {
            let one = try #require(http1[step.name]), two = try #require(h2[step.name])
            #expect(one.version.hasPrefix("HTTP/1"))
            #expect(two.version == "HTTP/2")
            #expect(one.status == two.status, "\(step.name): \(one.status) over HTTP/1.1, \(two.status) over h2")
            let keptID = step.name.hasPrefix("X-Request-Id")
            var fields1 = Self.comparable(one, requestID: keptID)
            let fields2 = Self.comparable(two, requestID: keptID)
            // An h2 answer may leave out Content-Length (DATA frames carry the length).
            if !fields2.contains(where: { $0.hasPrefix("content-length:") }) {
                fields1.removeAll { $0.hasPrefix("content-length:") }
            }
            #expect(fields1 == fields2, "\(step.name): headers differ\nHTTP/1.1: \(fields1)\nh2:       \(fields2)")
            #expect(one.body == two.body, "\(step.name): bodies differ\nHTTP/1.1: \(one.text)\nh2:       \(two.text)")
        }
        // The suite reaches what it names: a hit, a 304, gzip, the limits, the preflight.
        #expect(http1["APQ hashed GET hit"]?.header("X-Cache") == "HIT")
        #expect(http1["If-None-Match on the hit"]?.status == 304)
        #expect(http1["gzip hit"]?.header("Content-Encoding") == "gzip")
        #expect(http1["URI past max_uri_bytes (414)"]?.status == 414)
        #expect(http1["body past max_body_bytes (413)"]?.status == 413)
        #expect(http1["CORS preflight"]?.status == 204)
        #expect(http1["X-Request-Id kept"]?.header("X-Request-Id") == "3f2a-01:z")
    }
}
