// Which client headers reach the origin, and what the proxy adds.

import BreakwaterCore
import Testing

struct UpstreamHeadersTests {
    let builder = UpstreamHeaders(forwardHeaders: ["Authorization", "Cookie", "X-Request-Id", "Connection", "TE"])

    @Test func forwardsOnlyListedHeadersCaseInsensitively() {
        let client: HTTPHeaders = [
            "authorization": "Bearer t", "User-Agent": "curl", "x-request-id": "r1", "Accept-Encoding": "gzip",
        ]
        let headers = builder.make(from: client, remoteAddress: "10.0.0.1", isSecure: false)
        #expect(headers["Authorization"] == "Bearer t")
        #expect(headers["X-Request-Id"] == "r1")
        #expect(headers["User-Agent"] == nil)
        #expect(headers["Accept-Encoding"] == nil)
    }

    @Test func requestIDAndTraceHeadersReachTheOriginWithTheDefaultList() {
        let defaults = UpstreamHeaders(forwardHeaders: Configuration.Origin().forwardHeaders)
        let client: HTTPHeaders = [
            "X-Request-Id": "r2", "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "apollographql-client-name": "ios", "User-Agent": "curl",
        ]
        let headers = defaults.make(from: client, remoteAddress: "10.0.0.1", isSecure: false)
        #expect(headers.values(of: "X-Request-Id") == ["r2"])
        #expect(headers["traceparent"]?.hasPrefix("00-0af7651916cd43dd8448eb211c80319c-") == true)
        #expect(headers["apollographql-client-name"] == "ios")
        #expect(headers["User-Agent"] == nil)
    }

    // MARK: Trace context (docs/TRACING.md)

    static let defaults = UpstreamHeaders(forwardHeaders: Configuration.Origin().forwardHeaders, ids: RandomTraceIDs(seed: 1))
    static let clientParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test func theOriginGetsAChildOfTheClientsSpanWithItsFlagsAndState() throws {
        let client: HTTPHeaders = [
            "tracestate": "congo=t61rcWkgMzE", "traceparent": Self.clientParent, "tracestate": "rojo=00f067aa0ba902b7",
        ]
        let headers = Self.defaults.make(from: client, remoteAddress: "10.0.0.1", isSecure: false)
        #expect(headers.values(of: "traceparent").count == 1)
        let value = try #require(headers["traceparent"])
        let sent = try #require(TraceParent.parse(value))
        #expect(sent.traceID.hex == "0af7651916cd43dd8448eb211c80319c", "the same trace")
        #expect(sent.spanID.hex != "b7ad6b7169203331", "a new span: the origin fetch's")
        #expect(sent.flags == 0x01, "flags kept")
        #expect(headers.values(of: "tracestate") == ["congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"], "as received")
        let again = Self.defaults.make(from: client, remoteAddress: "10.0.0.1", isSecure: false)
        #expect(again["traceparent"] != headers["traceparent"], "each fetch is a span of its own")
    }

    @Test(arguments: [
        "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        "00-00000000000000000000000000000000-b7ad6b7169203331-01",
        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
        "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
    ])
    func anInvalidTraceparentIsNotPassedOnNorItsState(value: String) {
        let headers = Self.defaults.make(
            from: ["traceparent": value, "tracestate": "congo=t61rcWkgMzE"], remoteAddress: "10.0.0.1", isSecure: false)
        #expect(headers["traceparent"] == nil)
        #expect(headers["tracestate"] == nil)
    }

    @Test func twoTraceparentsAreNoneAndAnUnlistedOneIsNotRead() {
        let doubled = Self.defaults.make(
            from: ["traceparent": Self.clientParent, "traceparent": Self.clientParent], remoteAddress: "", isSecure: false)
        #expect(doubled["traceparent"] == nil)
        let unlisted = UpstreamHeaders(forwardHeaders: ["Authorization"]).make(
            from: ["traceparent": Self.clientParent, "tracestate": "a=b"], remoteAddress: "", isSecure: false)
        #expect(unlisted["traceparent"] == nil)
        #expect(unlisted["tracestate"] == nil)
    }

    @Test func aGivenTraceReplacesTheClientsFields() throws {
        let trace = SpanContext(
            traceID: TraceID(high: 1, low: 2), spanID: SpanID(3), flags: 0, state: "mine=1")
        let headers = Self.defaults.make(
            from: ["traceparent": Self.clientParent, "tracestate": "theirs=2"], remoteAddress: "", isSecure: false,
            trace: trace)
        #expect(headers.values(of: "traceparent") == ["00-00000000000000010000000000000002-0000000000000003-00"])
        #expect(headers.values(of: "tracestate") == ["mine=1"])
    }

    @Test func dropsHopByHopHeadersEvenWhenListed() {
        var request = HTTPRequest(
            method: .get, target: "/", headers: ["Connection": "keep-alive, Cookie", "TE": "trailers", "Cookie": "a=b"])
        // As the request arrives: the fields its Connection header names are scoped to that connection.
        request.removeConnectionScopedFields()
        let headers = builder.make(from: request.headers, remoteAddress: "127.0.0.1", isSecure: false)
        #expect(headers["Connection"] == nil)
        #expect(headers["TE"] == nil)
        #expect(headers["Cookie"] == nil)
    }

    @Test func aFieldNamedInConnectionLeavesTheRequestWhateverItsCase() {
        var request = HTTPRequest(
            method: .get, target: "/",
            headers: [
                "Connection": "close", "connection": " accept-LANGUAGE ,X-Request-Id", "Accept-Language": "fr",
                "X-Request-Id": "abc", "Authorization": "Bearer t",
            ])
        request.removeConnectionScopedFields()
        #expect(request.headers["Accept-Language"] == nil)
        #expect(request.headers["X-Request-Id"] == nil)
        #expect(request.headers["Authorization"] == "Bearer t")
        #expect(request.headers.values(of: "Connection").count == 2)
    }

    /// Names are told apart by length before they are compared: long names, names of a listed
    /// name's length, and any case still match exactly as listed.
    @Test func matchesNamesOfEveryLengthInAnyCase() {
        let long = String(repeating: "x-long-header-name-", count: 4)
        let builder = UpstreamHeaders(forwardHeaders: [long, "Accept-Language"])
        let client: HTTPHeaders = [
            long.uppercased(): "1", long + "y": "2", "ACCEPT-LANGUAGE": "fr", "Accept-Languagf": "no",
            "Connection": "close", "x-request-ID": "r9",
        ]
        let headers = builder.make(from: client, remoteAddress: "10.0.0.2", isSecure: false)
        #expect(headers.values(of: long) == ["1"])
        #expect(headers.values(of: "Accept-Language") == ["fr"])
        #expect(headers["Accept-Languagf"] == nil)
        #expect(headers["Connection"] == nil)
        // Not listed, yet passed on (README "The origin side"), once; replaced by the identity layer's id.
        #expect(headers.values(of: "X-Request-Id") == ["r9"])
        let identified = builder.make(from: client, requestID: RequestID("id-1"), remoteAddress: "10.0.0.2", isSecure: false)
        #expect(identified.values(of: "X-Request-Id") == ["id-1"])
    }

    @Test func addsForwardingHeaders() {
        let headers = builder.make(from: [:], remoteAddress: "127.0.0.1", isSecure: true)
        #expect(headers["X-Forwarded-For"] == "127.0.0.1")
        #expect(headers["X-Forwarded-Proto"] == "https")
        #expect(headers["Via"] == "1.1 breakwater")
        #expect(headers["Content-Type"] == "application/json")
        // A GET to the origin (`origin.method: GET`) carries no body, so no Content-Type.
        let get = builder.make(from: ["Content-Type": "application/json"], remoteAddress: "127.0.0.1", isSecure: true, sendsBody: false)
        #expect(get["Content-Type"] == nil)
        #expect(get["Accept"] == "application/json")
    }

    @Test func appendsToAnExistingChain() {
        let client: HTTPHeaders = ["X-Forwarded-For": "203.0.113.7", "Via": "1.1 cdn"]
        let headers = builder.make(from: client, remoteAddress: "127.0.0.1", isSecure: false)
        #expect(headers["X-Forwarded-For"] == "203.0.113.7, 127.0.0.1")
        #expect(headers["Via"] == "1.1 cdn, 1.1 breakwater")
        #expect(headers["X-Forwarded-Proto"] == "http")
    }

    /// The block holds the fields as the origin reads them, in order; fields the request's head
    /// writes itself (`Host`, `Accept-Encoding`, `Content-Length`) are not passed on even when listed.
    @Test func theBlockIsTheFieldsAsSent() {
        let builder = UpstreamHeaders(forwardHeaders: ["Authorization", "Host", "accept-encoding", "Content-Length", "Via"])
        let client: HTTPHeaders = [
            "Host": "client.example", "Authorization": "Bearer t", "Accept-Encoding": "br", "Content-Length": "9",
            "Via": "1.0 cdn", "X-Forwarded-For": "203.0.113.7",
        ]
        let block = builder.make(from: client, requestID: RequestID("id-2"), remoteAddress: "10.0.0.3", isSecure: true)
        let expected =
            "\r\nAuthorization: Bearer t\r\nVia: 1.0 cdn\r\nX-Request-Id: id-2\r\nContent-Type: application/json"
            + "\r\nAccept: application/json\r\nX-Forwarded-For: 203.0.113.7, 10.0.0.3\r\nX-Forwarded-Proto: https"
            + "\r\nVia: 1.0 cdn, 1.1 breakwater"
        #expect(String(decoding: block.bytes, as: UTF8.self) == expected)
        #expect(block.values(of: "Via") == ["1.0 cdn", "1.0 cdn, 1.1 breakwater"])
        // Read back (a log line, a freshness sample's changes) and written again, unchanged.
        #expect(UpstreamHeaderBlock(block.headers) == block)
        #expect(block.headers.fields.count == 8)
    }
}
