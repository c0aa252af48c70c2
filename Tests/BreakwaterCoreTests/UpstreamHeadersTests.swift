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
        #expect(headers["traceparent"] == "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        #expect(headers["apollographql-client-name"] == "ios")
        #expect(headers["User-Agent"] == nil)
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
