// The GraphQL-over-HTTP rules of README "GraphQL over HTTP rules" and the origin conversion of "The origin side", against the real
// binary: methods, media types, malformed input, limits, CORS, origin GET mode.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct GraphQLOverHTTPTests {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id } }"

    @Test func mutationOverGETIsMethodNotAllowedAndOverPOSTReachesTheOrigin() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let mutation = #"mutation Book { bookTrips(launchIds: ["1"]) { success } }"#
        let viaGET = try proxy.client.get("/graphql?" + URLEncoding.queryString([("query", mutation)]))
        #expect(viaGET.status == 405)
        #expect(viaGET.header("Allow") == "POST")
        #expect(firstError(viaGET).message == "GET requests only support query operations, not mutation operations")
        #expect(try origin.counters()["requests"] as? Int == 0)
        let viaPOST = try proxy.client.post(
            "/graphql", json: #"{"query":\#(APQ.jsonString(mutation))}"#, headers: [("Authorization", "ada@example.com")])
        #expect(viaPOST.status == 200)
        #expect((viaPOST.data?["bookTrips"] as? [String: Any])?["success"] as? Bool == true)
    }

    @Test func subscriptionIsRefusedClearly() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: #"{"query":"subscription OnLaunch { launches { cursor } }"}"#)
        #expect(response.status == 400)
        #expect(firstError(response).code == "SUBSCRIPTION_NOT_SUPPORTED")
    }

    @Test(arguments: [
        ("?query=%7B%20me%20%7B%20id%20%7D%20%7D&query=%7B%20me%20%7B%20id%20%7D%20%7D", "The 'query' search parameter may only be specified once."),
        ("?query=%7B%20me%20%7B%20id%20%7D%20%7D&variables=%22str%22", "The variables search parameter should contain a JSON-encoded object."),
        ("?query=%7B%20me%20%7B%20id%20%7D%20%7D&variables=%5B1%5D", "The variables search parameter should contain a JSON-encoded object."),
        ("?query=%7B%20me%20%7B%20id%20%7D%20%7D&extensions=%7Bbad", "The extensions search parameter contains invalid JSON"),
        ("", "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension."),
    ])
    func malformedGETIsBadRequest(query: String, message: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.get("/graphql" + query)
        #expect(response.status == 400)
        #expect(firstError(response).message?.hasPrefix(message) == true, "\(response.text)")
        #expect(response.header("Content-Type") == "application/json")
    }

    @Test(arguments: [
        ("{\"query\": ", "The request body is not valid JSON"),
        ("{}", "POST body missing, invalid Content-Type, or JSON object has no keys."),
        // `[1]` is a batch (README "GraphQL over HTTP rules"): BatchTests checks its element's own error.
        (#"{"query":"{ me { id } }","variables":"{\"a\":1}"}"#, "`variables` in a POST body should be provided as an object, not a recursively JSON-encoded string."),
        (#"{"query":"{ me { id } }","variables":[1]}"#, "`variables` in a POST body must be an object if provided."),
        (#"{"query":"{ me { id } }","extensions":"{}"}"#, "`extensions` in a POST body should be provided as an object, not a recursively JSON-encoded string."),
        (#"{"query":42}"#, "GraphQL queries must be strings."),
        (#"{"query":"{ me { id } }","variables":{"a":1,"a":2}}"#, "The request body is not valid JSON: duplicate key"),
        (#"{"operationName":"X"}"#, "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension."),
    ])
    func malformedPOSTIsBadRequest(body: String, message: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 400)
        #expect(firstError(response).message?.hasPrefix(message) == true, "\(response.text)")
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func unparsableDocumentIsBadRequestWithLocation() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: #"{"query":"{ launches("}"#)
        #expect(response.status == 400)
        #expect(firstError(response).code == "GRAPHQL_PARSE_FAILED")
        let location = ((response.jsonObject?["errors"] as? [[String: Any]])?.first?["locations"] as? [[String: Any]])?.first
        #expect(location?["line"] as? Int == 1)
        #expect(location?["column"] as? Int == 12)
    }

    /// A `\u` escape cut short by the end of the document stopped the process inside the GraphQL
    /// library's lexer (proxy and demo origin alike): now a 400 from each, and both keep serving.
    @Test func aDocumentEndingInAShortUnicodeEscapeIsBadRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        for client in [proxy.client, origin.client] {
            let response = try client.post("/graphql", json: #"{"query":"{ a(x: \"\\u12"}"#)
            #expect(response.status == 400, "\(response.text)")
            #expect(firstError(response).code == "GRAPHQL_PARSE_FAILED")
            #expect(firstError(response).message == #"Syntax Error: Invalid character escape sequence: \u."#)
        }
        let served = try proxy.client.post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#)
        #expect(served.status == 200, "\(served.text)")
    }

    @Test func unknownOperationNameIsBadRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.post("/graphql", json: #"{"query":"query A { me { id } }","operationName":"B"}"#)
        #expect(response.status == 400)
        #expect(firstError(response).message == #"Unknown operation named "B"."#)
    }

    @Test func emptyParameterCountsAsAbsent() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.get(
            "/graphql?" + URLEncoding.queryString([("query", Self.detail), ("operationName", ""), ("variables", #"{"id":"4"}"#), ("extensions", "")]))
        #expect(response.status == 200)
        #expect((response.data?["launch"] as? [String: Any])?["id"] as? String == "4")
    }

    /// A GET whose request-target is exactly `length` bytes (padded with an ignored parameter).
    func target(length: Int) -> String {
        let base = "/graphql?" + URLEncoding.queryString([("query", Self.detail), ("variables", #"{"id":"1"}"#)]) + "&pad="
        return base + String(repeating: "x", count: length - base.utf8.count)
    }

    @Test func requestTargetOfExactlyTheLimitIsServedAndOneMoreIsURITooLong() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let atLimit = try proxy.client.get(target(length: 32_768))
        #expect(atLimit.status == 200, "\(atLimit.text)")
        let over = try proxy.client.get(target(length: 32_769))
        #expect(over.status == 414)
        #expect(firstError(over).message?.contains("POST") == true)
        #expect(over.header("Content-Type") == "application/json")
        #expect(try origin.counters()["requests"] as? Int == 1)
    }

    @Test func bodyOverTheLimitIsPayloadTooLarge() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: "server:\n  max_body_bytes: 1KiB\npersisted_queries:\n  store: \"\"\n")
        let padding = String(repeating: " ", count: 1100)
        let response = try proxy.client.post("/graphql", json: #"{"query":"{ me { id } }"\#(padding)}"#)
        #expect(response.status == 413)
        #expect(firstError(response).code == "PAYLOAD_TOO_LARGE")
        #expect(try proxy.client.post("/graphql", json: #"{"query":"{ me { id } }"}"#).status == 200)
    }

    @Test func headersOverTheLimitAreTooLarge() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "server:\n  max_uri_bytes: 1024\n  max_header_bytes: 4KiB\npersisted_queries:\n  store: \"\"\n")
        let response = try proxy.client.post(
            "/graphql", json: #"{"query":"{ me { id } }"}"#, headers: [("X-Big", String(repeating: "a", count: 5000))])
        #expect(response.status == 431)
        #expect(firstError(response).code == "REQUEST_HEADER_FIELDS_TOO_LARGE")
    }

    @Test func originMethodGETSendsQueriesAsGETUntilTheyDoNotFit() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "origin:\n  method: GET\n  max_get_uri_bytes: 512\npersisted_queries:\n  store: \"\"\n")
        let short = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(Self.detail)),"variables":{"id":"2"}}"#)
        #expect((short.data?["launch"] as? [String: Any])?["id"] as? String == "2")
        var counters = try origin.counters()
        #expect((counters["byMethod"] as? [String: Any])?["GET"] as? Int == 1)
        let long = "query Long($id: ID!) { launch(id: $id) { id " + String(repeating: "site ", count: 200) + "} }"
        let longResponse = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(long)),"variables":{"id":"2"}}"#)
        #expect(longResponse.status == 200)
        counters = try origin.counters()
        #expect((counters["byMethod"] as? [String: Any])?["POST"] as? Int == 1)
        #expect(APQ.withoutReservedSelections(counters["lastQuery"] as? String) == long)
    }

    static let corsYAML = """
        server:
          cors:
            allow_origins: ["https://app.example.com"]
            allow_headers: [Content-Type, Authorization]
            max_age: 10m
        persisted_queries:
          store: ""
        """

    @Test func corsPreflightIsAnsweredForAllowedOriginsOnly() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.corsYAML)
        let allowed = try proxy.client.send(
            method: "OPTIONS", target: "/graphql",
            headers: [("Origin", "https://app.example.com"), ("Access-Control-Request-Method", "POST")])
        #expect(allowed.status == 204)
        #expect(allowed.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(allowed.header("Access-Control-Allow-Methods")?.contains("POST") == true)
        #expect(allowed.header("Access-Control-Allow-Headers") == "Content-Type, Authorization")
        #expect(allowed.header("Access-Control-Max-Age") == "600")
        #expect(allowed.header("Vary") == "Origin")
        // Browsers refuse a preflight whose Access-Control-Allow-Origin comes twice.
        #expect(allowed.headers(named: "Access-Control-Allow-Origin").count == 1)
        #expect(allowed.headers(named: "Vary").count == 1)
        let foreign = try proxy.client.send(
            method: "OPTIONS", target: "/graphql", headers: [("Origin", "https://evil.example"), ("Access-Control-Request-Method", "POST")])
        #expect(foreign.header("Access-Control-Allow-Origin") == nil)
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func corsHeadersRideOnEveryResponse() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.corsYAML)
        let ok = try proxy.client.post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#, headers: [("Origin", "https://app.example.com")])
        #expect(ok.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(ok.headers(named: "Vary").contains("Origin"))
        #expect(ok.headers(named: "Access-Control-Allow-Origin").count == 1)
        #expect(ok.header("Access-Control-Expose-Headers") == "X-Cache, Age, ETag, X-Request-Id")
        let error = try proxy.client.post("/graphql", json: "{}", headers: [("Origin", "https://app.example.com")])
        #expect(error.status == 400)
        #expect(error.header("Access-Control-Allow-Origin") == "https://app.example.com")
        let foreign = try proxy.client.post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#, headers: [("Origin", "https://evil.example")])
        #expect(foreign.status == 200)
        #expect(foreign.header("Access-Control-Allow-Origin") == nil)
    }

    @Test func withoutCORSConfiguredOptionsIsMethodNotAllowed() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let response = try proxy.client.send(method: "OPTIONS", target: "/graphql", headers: [("Origin", "https://app.example.com")])
        #expect(response.status == 405)
        #expect(response.header("Access-Control-Allow-Origin") == nil)
    }
}
