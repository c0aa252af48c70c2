// HTTP2Session in-process, against nghttp2's own client: streams become the same
// HTTPRequest as HTTP/1.1's, answers go out with HTTP/1.1's fields in HTTP/2's form, the
// limits answer with HTTP/1.1's statuses per stream, floods end in GOAWAY ENHANCE_YOUR_CALM,
// a reset stream leaves the others alone, and the deadlines answer 408 or reset. Time is passed in.

@testable import BreakwaterServer
import BreakwaterCore
import BreakwaterHTTP2
import Foundation
import Testing

/// A server connection and a client connection wired together in memory.
private final class Pair {
    let client = HTTP2TestClient()
    let server: HTTP2Session
    var output = OutputQueue()
    /// The server's side of a socket pair (its frames are read back from the other side).
    private let serverEnd: Int32
    private let clientEnd: Int32
    var requests: [(stream: Int32, request: HTTPRequest)] = []
    var refusals: [Int32: HTTPResponse] = [:]
    var now: Int64 = 0
    /// Answers each request as it arrives, when set.
    var respond: ((HTTPRequest) -> HTTPResponse)?

    init(maxStreams: Int = 16, maxHeadBytes: Int = 4096, maxBodyBytes: Int = 1000, maxTarget: Int = 200) throws {
        server = try HTTP2Session(
            settings: HTTP2Settings(
                maxStreams: maxStreams,
                headLimits: HTTP2HeadLimits(maxTargetBytes: maxTarget, maxHeadBytes: maxHeadBytes, maxBodyBytes: maxBodyBytes),
                deadlines: .init(idleTimeout: 60_000_000_000, headerTimeout: 10_000_000_000, bodyTimeout: 30_000_000_000)),
            remoteAddress: "10.0.0.7", isSecure: true, now: 0)
        var fds: [Int32] = [0, 0]
        precondition(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        serverEnd = fds[0]
        clientEnd = fds[1]
        _ = fcntl(clientEnd, F_SETFL, fcntl(clientEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(serverEnd)
        close(clientEnd)
    }

    /// One round: the client's frames to the server, its events performed, its frames back.
    func exchange(rounds: Int = 4) {
        for _ in 0..<rounds {
            let bytes = client.outgoing()
            if !bytes.isEmpty, let events = bytes.withUnsafeBufferPointer({ server.receive($0, now: now) }) {
                perform(events)
            }
            deliver()
        }
    }

    func perform(_ events: [HTTP2Session.Event]) {
        for event in events {
            switch event {
            case .request(let stream, let request):
                requests.append((stream, request))
                if let respond { server.answer(stream, with: respond(request), date: "Thu, 26 Nov 2026 12:00:00 GMT") }
            case .refusal(let stream, let response):
                refusals[stream] = response
                server.answer(stream, with: response, date: "Thu, 26 Nov 2026 12:00:00 GMT")
            case .abandoned:
                // The handler's work for a reset stream: these tests answer at once or never.
                break
            }
        }
    }

    /// The server's queued frames to the client.
    func deliver() {
        _ = server.send(into: &output, bound: 1 << 20)
        while !output.isEmpty {
            _ = try? output.write(to: .plain(serverEnd))
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(clientEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                client.incoming(Array(chunk[0..<count]))
            }
        }
    }
}

@Suite struct HTTP2SessionTests {
    let get: [(String, String)] = [(":method", "GET"), (":scheme", "https"), (":authority", "edge.example"), (":path", "/graphql?query=%7Ba%7D")]

    @Test func aStreamBecomesTheRequestHTTP1WouldHaveMade() throws {
        let pair = try Pair()
        pair.client.request(get + [("cookie", "a=1"), ("accept", "application/json"), ("cookie", "b=2")])
        pair.exchange()
        let request = try #require(pair.requests.first?.request)
        #expect(request.method == .get)
        #expect(request.target == "/graphql?query=%7Ba%7D")
        #expect(request.headers["Host"] == "edge.example")
        #expect(request.headers["Cookie"] == "a=1; b=2")
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.version == .http2)
        #expect(request.isSecure && request.remoteAddress == "10.0.0.7")
    }

    @Test func aBodyArrivesWholeBeforeTheRequestIsHandedOn() throws {
        let pair = try Pair()
        let body = Array(#"{"query":"{a}"}"#.utf8)
        pair.client.request([(":method", "POST"), (":scheme", "http"), (":authority", "x"), (":path", "/graphql")], body: body)
        pair.exchange()
        #expect(pair.requests.count == 1)
        #expect(pair.requests.first?.request.body == body)
    }

    @Test func theAnswerCarriesHTTP1sFieldsLowerCasedWithoutConnectionFields() throws {
        let pair = try Pair()
        pair.respond = { _ in
            var response = HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json", "Connection": "close", "Transfer-Encoding": "chunked", "X-Cache": "HIT"],
                body: #"{"data":{"a":1}}"#)
            response.requestID = "r-1"
            return response
        }
        let stream = pair.client.request(get)
        pair.exchange()
        let answer = try #require(pair.client.answers[stream])
        #expect(answer.status == 200)
        #expect(answer.value("content-type") == "application/json")
        #expect(answer.value("x-cache") == "HIT")
        #expect(answer.value("x-request-id") == "r-1")
        #expect(answer.value("date") == "Thu, 26 Nov 2026 12:00:00 GMT")
        #expect(answer.value("content-length") == "16")
        #expect(answer.value("connection") == nil && answer.value("transfer-encoding") == nil)
        #expect(answer.headers.allSatisfy { $0.name == $0.name.lowercased() })
        #expect(String(decoding: answer.body, as: UTF8.self) == #"{"data":{"a":1}}"#)
        #expect(answer.ended)
    }

    @Test func aCachedAnswersStoredFieldsAndBodyGoOut() throws {
        let pair = try Pair()
        let prebuilt = PrebuiltResponse(
            fields: [HTTPHeaderField(name: "ETag", value: "\"0123456789abcdef\""), HTTPHeaderField(name: "Surrogate-Key", value: "op:A")],
            body: Array(repeating: UInt8(ascii: "x"), count: 40_000))
        pair.respond = { _ in HTTPResponse(status: 200, headers: ["X-Cache": "HIT"], prebuilt: prebuilt) }
        let stream = pair.client.request(get)
        pair.exchange(rounds: 8)
        let answer = try #require(pair.client.answers[stream])
        #expect(answer.value("etag") == "\"0123456789abcdef\"")
        #expect(answer.value("surrogate-key") == "op:A")
        #expect(answer.value("content-length") == "40000")
        #expect(answer.body.count == 40_000)
    }

    @Test func aHeadAnswerHasTheLengthAndNoBody() throws {
        let pair = try Pair()
        pair.respond = { _ in HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: "hello") }
        let stream = pair.client.request([(":method", "HEAD"), (":scheme", "http"), (":authority", "x"), (":path", "/")])
        pair.exchange()
        let answer = try #require(pair.client.answers[stream])
        #expect(answer.value("content-length") == "5")
        #expect(answer.body.isEmpty && answer.ended)
    }

    @Test func eachLimitAnswersItsStatusOnTheStreamOnly() throws {
        let pair = try Pair(maxHeadBytes: 600, maxBodyBytes: 100, maxTarget: 50)
        pair.respond = { _ in HTTPResponse(status: 200, body: "ok") }
        let longPath = pair.client.request([(":method", "GET"), (":scheme", "http"), (":authority", "x"), (":path", "/" + String(repeating: "a", count: 60))])
        let bigHead = pair.client.request(get + (0..<40).map { ("x-filler-\($0)", String(repeating: "v", count: 20)) })
        let declared = pair.client.request(
            [(":method", "POST"), (":scheme", "http"), (":authority", "x"), (":path", "/"), ("content-length", "101")],
            body: [1], holdingBody: true)
        let sent = pair.client.request([(":method", "POST"), (":scheme", "http"), (":authority", "x"), (":path", "/")], body: Array(repeating: 65, count: 150))
        let fine = pair.client.request(get)
        pair.exchange(rounds: 6)
        #expect(pair.client.answers[longPath]?.status == 414)
        #expect(pair.client.answers[bigHead]?.status == 431)
        #expect(pair.client.answers[declared]?.status == 413)
        #expect(pair.client.answers[sent]?.status == 413)
        #expect(pair.client.answers[fine]?.status == 200)
        #expect(pair.requests.map(\.stream) == [fine])
        #expect(pair.client.goAwayCode == nil)
    }

    @Test func aPingFloodEndsInEnhanceYourCalm() throws {
        let pair = try Pair()
        for _ in 0..<1_200 { pair.client.ping() }
        pair.exchange()
        #expect(pair.client.goAwayCode == 11)  // ENHANCE_YOUR_CALM
        #expect(pair.server.isGoingAway)
    }

    @Test func streamsPastTheLimitAreRefused() throws {
        let pair = try Pair(maxStreams: 4)
        // Requests whose bodies never come keep their streams open.
        let streams = (0..<6).map { _ in
            pair.client.request([(":method", "POST"), (":scheme", "http"), (":authority", "x"), (":path", "/")], body: [1], holdingBody: true)
        }
        pair.exchange()
        let refused = streams.filter { pair.client.answers[$0]?.resetCode == 7 }  // REFUSED_STREAM
        #expect(refused == Array(streams.suffix(2)))
        #expect(pair.server.deadlines.openStreams == 4)
    }

    @Test func aResetStreamIsForgottenAndItsLateAnswerGoesNowhere() throws {
        let pair = try Pair()
        let first = pair.client.request(get)
        let second = pair.client.request(get)
        pair.exchange()
        #expect(pair.requests.count == 2)
        pair.client.reset(first)
        pair.exchange()
        pair.server.answer(first, with: HTTPResponse(status: 200, body: "late"), date: "-")
        pair.server.answer(second, with: HTTPResponse(status: 200, body: "on time"), date: "-")
        pair.exchange()
        #expect(pair.client.answers[first]?.status == nil)
        #expect(pair.client.answers[second]?.status == 200)
        #expect(pair.client.goAwayCode == nil)
    }

    @Test func aSlowBodyIsAnswered408AndAnIdleConnectionGetsGoAway() throws {
        let pair = try Pair()
        let stream = pair.client.request(
            [(":method", "POST"), (":scheme", "http"), (":authority", "x"), (":path", "/")], body: [1], holdingBody: true)
        pair.exchange()
        pair.now = 29_000_000_000
        #expect(pair.server.deadlinePassed(now: pair.now) { HTTPResponse(status: 408) }.isEmpty)
        pair.now = 30_000_000_000
        pair.perform(pair.server.deadlinePassed(now: pair.now) {
            GraphQLErrorResponse(status: 408, message: "late", code: "REQUEST_TIMEOUT").response
        })
        pair.deliver()
        #expect(pair.client.answers[stream]?.status == 408)
        #expect(pair.requests.isEmpty)
        // The stream ends (the answer, then RST_STREAM NO_ERROR); a minute later the idle connection goes.
        pair.exchange()
        #expect(pair.server.deadlines.openStreams == 0)
        pair.now = 200_000_000_000
        _ = pair.server.deadlinePassed(now: pair.now) { HTTPResponse(status: 408) }
        pair.deliver()
        #expect(pair.client.goAwayCode == 0)
    }

    /// The drain's GOAWAY in two steps (RFC 9113 6.8): the notice (2^31-1) with a PING; a stream
    /// the client opened before it read them is taken and answered; the final GOAWAY, when the
    /// PING comes back, names that stream.
    @Test func theDrainSaysGoAwayInTwoStepsAndTakesTheStreamThatCrossedTheNotice() throws {
        let pair = try Pair()
        pair.respond = { _ in HTTPResponse(status: 200) }
        let first = pair.client.request(get)
        pair.exchange()
        pair.server.beginGoingAway(now: 0)
        // On the wire before the client reads the notice.
        let crossing = pair.client.request(get)
        let crossed = pair.client.outgoing()
        pair.deliver()
        #expect(pair.client.goAwayLastStreams == [Int32.max])
        if let events = crossed.withUnsafeBufferPointer({ pair.server.receive($0, now: 0) }) { pair.perform(events) }
        pair.exchange()
        #expect(pair.requests.map(\.stream) == [first, crossing])
        #expect(pair.client.goAwayLastStreams == [Int32.max, crossing])
        #expect(pair.client.answers[crossing]?.status == 200)
        #expect(pair.client.answers[crossing]?.resetCode == nil)
        #expect(pair.server.finalGoAwayDeadline == nil)
    }

    /// A client that never answers the PING gets the final GOAWAY after the bound.
    @Test func theFinalGoAwayGoesAfterTheBoundWithoutThePingsAcknowledgement() throws {
        let pair = try Pair()
        pair.exchange()
        pair.server.beginGoingAway(now: 0)
        pair.deliver()
        #expect(pair.server.finalGoAwayDeadline == HTTP2Session.finalGoAwayBound)
        #expect(pair.client.goAwayLastStreams == [Int32.max])
        pair.server.goAwayIfDue(now: HTTP2Session.finalGoAwayBound - 1)
        pair.deliver()
        #expect(!pair.server.isDone, "new streams are still taken")
        pair.server.goAwayIfDue(now: HTTP2Session.finalGoAwayBound)
        pair.deliver()
        #expect(pair.server.isDone, "the final GOAWAY is sent and no stream is open")
    }
}
