// Live framing tests (README, "The HTTP engines"; RFC 9112): the real proxy over raw sockets refuses
// ambiguous requests before anything reaches the origin, answers pipelined requests in order,
// cuts slow heads off at header_timeout, and stops reading a client that does not read.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct FramingTests {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"

    static func post(_ id: Int) -> String {
        #"{"query":\#(APQ.jsonString(detail)),"variables":{"id":"\#(id)"}}"#
    }

    /// Sends `wire` on a fresh connection; the answer, and whether the proxy then closed.
    func exchange(_ proxy: ProxyProcess, _ wire: String) throws -> (response: HTTPClientResponse, closed: Bool) {
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        defer { connection.close() }
        try connection.write(Array(wire.utf8))
        let response = try #require(try connection.readResponse(requestMethod: "POST", timeout: .seconds(5)))
        return (response, !connection.isOpen)
    }

    func expectRefused(_ wire: String, status: Int = 400, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let (response, closed) = try exchange(proxy, wire)
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/json", sourceLocation: sourceLocation)
        #expect(closed, "the proxy keeps a connection whose framing it cannot trust", sourceLocation: sourceLocation)
        #expect(try origin.counters()["requests"] as? Int == 0, "a refused request reached the origin", sourceLocation: sourceLocation)
        #expect(proxy.process.isRunning, sourceLocation: sourceLocation)
    }

    static func head(_ fields: String, body: String = "") -> String {
        "POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\(fields)\r\n\(body)"
    }

    @Test func contentLengthWithTransferEncodingIsRefusedAndClosed() throws {
        let body = Self.post(1)
        try expectRefused(Self.head(
            "Content-Length: \(body.utf8.count)\r\nTransfer-Encoding: chunked\r\n",
            body: String(body.utf8.count, radix: 16) + "\r\n\(body)\r\n0\r\n\r\n"))
    }

    @Test func twoDifferentContentLengthsAreRefusedAndNothingIsSmuggled() throws {
        let smuggled = "GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: localhost\r\n\r\n"
        let body = Self.post(1)
        try expectRefused(Self.head(
            "Content-Length: \(body.utf8.count)\r\nContent-Length: \(body.utf8.count + smuggled.utf8.count)\r\n",
            body: body + smuggled))
    }

    @Test func signedContentLengthIsRefused() throws {
        try expectRefused(Self.head("Content-Length: +74\r\n", body: Self.post(1)))
    }

    @Test func spaceBeforeTheColonIsRefused() throws {
        try expectRefused("GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost : localhost\r\n\r\n")
    }

    @Test func missingHostIsRefused() throws {
        try expectRefused("GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nAccept: */*\r\n\r\n")
    }

    @Test func nulInAHeaderValueIsRefused() throws {
        try expectRefused("GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: localhost\r\nX-A: a\u{0}b\r\n\r\n")
    }

    @Test func otherTransferEncodingsAreNotImplemented() throws {
        try expectRefused(Self.head("Transfer-Encoding: gzip, chunked\r\n", body: "0\r\n\r\n"), status: 501)
    }

    /// RFC 9112 7.1.1: an extension without a name, or with an open quoted-string, is refused.
    @Test(arguments: [";", ";a=\"open"])
    func malformedChunkExtensionsAreRefusedAndClosed(extensions: String) throws {
        let body = Self.post(1)
        try expectRefused(Self.head(
            "Transfer-Encoding: chunked\r\n",
            body: String(body.utf8.count, radix: 16) + extensions + "\r\n\(body)\r\n0\r\n\r\n"))
    }

    /// A CONNECT target is a host and port: the method is refused as any other but GET and POST,
    /// and the connection ends, since what follows a CONNECT's head may be tunnel bytes.
    @Test(arguments: ["example.com:443", "127.0.0.1:443", "[::1]:443"])
    func connectIsMethodNotAllowedAndClosed(target: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        // The head, then the first bytes of a TLS ClientHello, as a client tunnelling optimistically sends.
        let wire = "CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n\u{16}\u{3}\u{1}"
        let (response, closed) = try exchange(proxy, wire)
        #expect(response.status == 405, "\(response.text)")
        #expect(response.header("Allow") == "GET, POST")
        #expect(response.header("Content-Type") == "application/json")
        let error = try #require((response.jsonObject?["errors"] as? [[String: Any]])?.first)
        #expect((error["message"] as? String)?.contains("CONNECT is not allowed") == true, "\(error)")
        #expect((error["extensions"] as? [String: Any])?["code"] as? String == "METHOD_NOT_ALLOWED")
        #expect(closed, "bytes after a CONNECT's head are not read as a request")
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func chunkedRequestBodyIsDecodedAndForwarded() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let body = Array(Self.post(7).utf8)
        let chunks = stride(from: 0, to: body.count, by: 10).map { start -> String in
            let piece = body[start..<min(start + 10, body.count)]
            return String(piece.count, radix: 16) + "\r\n" + String(decoding: piece, as: UTF8.self) + "\r\n"
        }.joined()
        let (response, _) = try exchange(proxy, Self.head("Transfer-Encoding: chunked\r\n", body: chunks + "0\r\n\r\n"))
        #expect(response.status == 200, "\(response.text)")
        #expect((response.data?["launch"] as? [String: Any])?["id"] as? String == "7")
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        // Warm one entry so hits (answered at once) and misses (answered later) interleave.
        #expect(try proxy.client.post("/graphql", json: Self.post(3)).status == 200)
        let ids = [3, 11, 3, 12, 13, 3, 14, 3]
        let wire = ids.map { id in
            let body = Self.post(id)
            return Self.head("Content-Length: \(body.utf8.count)\r\n", body: body)
        }.joined()
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(10))
        defer { connection.close() }
        try connection.write(Array(wire.utf8))
        for id in ids {
            let response = try #require(try connection.readResponse(requestMethod: "POST", timeout: .seconds(10)))
            #expect((response.data?["launch"] as? [String: Any])?["id"] as? String == "\(id)")
        }
    }

    /// Sends one request with `Connection: close` and `after` behind it in the same write, reads
    /// the answer and the end of the stream, then whether bytes sent afterwards meet a reset
    /// (a closed socket) rather than being read and dropped (a lingering one).
    func closingExchange(after: String) throws -> (status: Int, reset: Bool) {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let body = Self.post(7)
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        defer { connection.close() }
        try connection.write(Array((Self.head("Content-Length: \(body.utf8.count)\r\nConnection: close\r\n", body: body) + after).utf8))
        let response = try #require(try connection.readResponse(requestMethod: "POST", timeout: .seconds(5)))
        #expect(try connection.readResponse(requestMethod: "POST", timeout: .seconds(5)) == nil, "the stream ends after the answer")
        // A reset shows on a write after the first one the closed socket answered: polled for half
        // a second (a lingering socket takes every write until its two seconds are up).
        let deadline = ContinuousClock.now + .milliseconds(500)
        while ContinuousClock.now < deadline {
            do {
                try connection.write(Array("x".utf8), timeout: .seconds(1))
            } catch {
                return (response.status, true)
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return (response.status, false)
    }

    @Test func aClientThatAskedToCloseAndSentNothingMoreIsClosedAtOnce() throws {
        // As nginx: no shutdown and wait for the client's FIN when nothing of its is unread.
        let (status, reset) = try closingExchange(after: "")
        #expect(status == 200)
        #expect(reset, "the socket lingered: bytes sent after the answer were read and dropped")
    }

    @Test func bytesSentAfterAClosingRequestAreDrainedNotReset() throws {
        // Unread bytes would turn a close into a reset that can destroy the answer in flight:
        // the proxy shuts its side and drains instead.
        let (status, reset) = try closingExchange(after: "GET /graphql?query=%7B__typename%7D HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(status == 200)
        #expect(!reset, "the socket was closed with the client's bytes unread")
    }

    @Test func slowHeadIsCutOffAtTheHeaderTimeout() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "server:\n  header_timeout: 1s\n  idle_timeout: 30s\npersisted_queries:\n  store: \"\"\n")
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(10))
        defer { connection.close() }
        let started = ContinuousClock.now
        // One smoke of the rule end to end: that trickled bytes do not move the header deadline
        // is proved on a manual clock (HTTP1ServerConnectionTests).
        try connection.write(Array("GET /graphql HTTP/1.1\r\nX-Trickle: y\r\n".utf8))
        let refused = try connection.readResponse(requestMethod: "GET", timeout: .seconds(3))
        let elapsed = ContinuousClock.now - started
        #expect(refused?.status == 408)
        #expect(elapsed < .seconds(3), "the head was held \(elapsed)")
    }

    @Test func bodyThatDoesNotArriveInTimeIsRequestTimeout() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "server:\n  body_timeout: 1s\npersisted_queries:\n  store: \"\"\n")
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(10))
        defer { connection.close() }
        let started = ContinuousClock.now
        try connection.write(Array(Self.head("Content-Length: 100\r\n", body: "{\"query\":").utf8))
        let response = try connection.readResponse(requestMethod: "POST", timeout: .seconds(5))
        #expect(response?.status == 408)
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func connectionsBeyondMaxConnectionsAreRefusedAtAccept() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "server:\n  max_connections: 2\npersisted_queries:\n  store: \"\"\n", threads: 1)
        let first = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        let second = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        #expect(try first.get("/graphql?query=%7B__typename%7D").status == 200)
        #expect(try second.get("/graphql?query=%7B__typename%7D").status == 200)
        let third = try KeepAliveClient(port: proxy.port, timeout: .seconds(5))
        #expect((try? third.get("/graphql?query=%7B__typename%7D")) == nil, "a third connection was served")
        third.close()
        first.close()
        // A freed slot serves again, once the proxy saw the close.
        let servedAgain = eventually {
            guard let fourth = try? KeepAliveClient(port: proxy.port, timeout: .seconds(5)) else { return false }
            defer { fourth.close() }
            return (try? fourth.get("/graphql?query=%7B__typename%7D").status) == 200
        }
        #expect(servedAgain, "a freed slot did not serve again")
        second.close()
    }

    @Test func pipeliningClientThatNeverReadsKeepsMemoryFlat() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        #expect(try proxy.client.post("/graphql", json: Self.post(5)).status == 200)
        let pid = try #require(proxy.process.processIdentifier)
        let before = try #require(Self.residentKiB(pid))
        let body = Self.post(5)
        let one = Array(Self.head("Content-Length: \(body.utf8.count)\r\n", body: body).utf8)
        var wire: [UInt8] = []
        for _ in 0..<2000 { wire += one }
        let connection = try KeepAliveClient(port: proxy.port, timeout: .seconds(10))
        defer { connection.close() }
        // 2000 hits of ~300 bytes each would queue about 1 MB of answers per pass if the proxy
        // kept reading; it stops reading instead, so the writes block and time out.
        var sentBytes = 0
        for _ in 0..<40 {
            do {
                try connection.write(wire, timeout: .milliseconds(500))
                sentBytes += wire.count
            } catch {
                break
            }
        }
        let after = try #require(Self.residentKiB(pid))
        #expect(sentBytes < 40 * wire.count, "the proxy read everything a non-reading client sent")
        #expect(after - before < 32 << 10, "resident memory grew from \(before) KiB to \(after) KiB")
        // The proxy still serves others.
        #expect(try proxy.client.post("/graphql", json: Self.post(5)).status == 200)
    }

    static func residentKiB(_ pid: Int32) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") }
    }
}
