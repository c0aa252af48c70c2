// The origin-side response parser: each framing (Content-Length, chunked, close-delimited),
// interim answers, bodiless statuses, and truncation, fed every way bytes arrive.

import BreakwaterHTTP1
import Testing

/// One response as the parser delivered it.
struct ParsedResponse: Equatable {
    var status = 0
    var headers: [String] = []
    var body = ""
    var keepAlive = true
}

struct ResponseOutcome: Equatable {
    var responses: [ParsedResponse] = []
    var error: HTTP1ParseError.Reason?
}

enum ResponseFeeding {
    static func responses(_ wire: [UInt8], toHEAD: Bool, closes: Bool, pieces: [Int]) -> ResponseOutcome {
        var parser = HTTP1ResponseParser(maxHeadBytes: 1024, maxBodyBytes: 1024)
        parser.expectResponse(toHEAD: toHEAD)
        var buffer: [UInt8] = []
        var outcome = ResponseOutcome()
        var current = ParsedResponse()
        var offset = 0
        func handle(_ event: HTTP1ResponseParser.Event) -> Bool {
            switch event {
            case .needMore: return false
            case .head:
                current = ParsedResponse(
                    status: parser.head.status,
                    headers: parser.head.fields.map { Feeding.text(buffer, $0.name) + ": " + Feeding.text(buffer, $0.value) },
                    keepAlive: parser.head.keepAlive)
            case .body(let range): current.body += Feeding.text(buffer, range)
            case .end:
                outcome.responses.append(current)
                parser.expectResponse(toHEAD: toHEAD)
            case .error(let error):
                outcome.error = error.reason
                return false
            }
            return true
        }
        for size in pieces {
            buffer += wire[offset..<(offset + size)]
            offset += size
            while outcome.error == nil, handle(buffer.withUnsafeBufferPointer { parser.next(in: $0) }) {}
            if outcome.error != nil { return outcome }
            let unneeded = parser.retainedFrom
            buffer.removeFirst(unneeded)
            parser.discard(unneeded)
        }
        if closes { _ = handle(parser.finishAtClose()) }
        return outcome
    }

    static func responses(
        _ wire: String, toHEAD: Bool = false, closes: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) -> ResponseOutcome {
        let bytes = Array(wire.utf8)
        let reference = responses(bytes, toHEAD: toHEAD, closes: closes, pieces: [bytes.count])
        for pieces in Feeding.splits(of: bytes.count) {
            let outcome = responses(bytes, toHEAD: toHEAD, closes: closes, pieces: pieces)
            #expect(outcome == reference, "pieces \(pieces.prefix(8))...", sourceLocation: sourceLocation)
            if outcome != reference { break }
        }
        return reference
    }
}

@Suite struct HTTP1ResponseParserTests {
    @Test func contentLengthResponsesFollowOneAnother() {
        let one = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
        let outcome = ResponseFeeding.responses(one + one)
        #expect(outcome.error == nil)
        #expect(outcome.responses == Array(repeating: ParsedResponse(
            status: 200, headers: ["Content-Type: application/json", "Content-Length: 2"], body: "{}"), count: 2))
    }

    @Test func chunkedResponseIsDecoded() {
        let outcome = ResponseFeeding.responses(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4\r\n\":1}\r\n0\r\n\r\n")
        #expect(outcome.responses.map(\.body) == [#"{"a":1}"#])
    }

    @Test func bodyWithoutLengthRunsUntilTheOriginCloses() {
        let outcome = ResponseFeeding.responses("HTTP/1.1 200 OK\r\n\r\n{\"data\":null}", closes: true)
        #expect(outcome.responses == [ParsedResponse(status: 200, body: #"{"data":null}"#, keepAlive: false)])
    }

    @Test func interimAnswersAreSkipped() {
        let outcome = ResponseFeeding.responses(
            "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nx")
        #expect(outcome.responses.map(\.status) == [201])
        #expect(outcome.responses.map(\.headers) == [["Content-Length: 1"]])
    }

    @Test func headAnswerHasNoBodyWhateverItsLength() {
        let outcome = ResponseFeeding.responses(
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", toHEAD: true)
        #expect(outcome.responses.map(\.body) == ["", ""])
    }

    @Test(arguments: [204, 304])
    func bodilessStatusesEndAtTheirHead(status: Int) {
        let outcome = ResponseFeeding.responses("HTTP/1.1 \(status) X\r\nContent-Length: 5\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nz")
        #expect(outcome.responses.map(\.status) == [status, 200])
    }

    @Test func http10AndConnectionCloseAreNotReused() {
        #expect(ResponseFeeding.responses("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").responses.map(\.keepAlive) == [false])
        #expect(ResponseFeeding.responses("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").responses.map(\.keepAlive) == [false])
        #expect(ResponseFeeding.responses("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n").responses.map(\.keepAlive) == [true])
    }

    @Test func statusLinesWithoutReasonOrWithAnyMinorDigitAreRead() {
        let outcome = ResponseFeeding.responses("HTTP/1.1 204\r\n\r\nHTTP/1.9 200 OK\r\nContent-Length: 2\r\n\r\n{}")
        #expect(outcome.error == nil)
        #expect(outcome.responses.map(\.status) == [204, 200])
        #expect(outcome.responses.last?.body == "{}")
    }

    @Test func truncatedBodyIsAnErrorAtClose() {
        #expect(ResponseFeeding.responses("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", closes: true).error == .truncated)
        #expect(ResponseFeeding.responses("HTTP/1.1 200 OK\r\nContent-Le", closes: true).error == .truncated)
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 20 OK\r\n\r\n", "HTTP/2 200 OK\r\n\r\n", "<html>\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Header: 1\r\n\r\n", "HTTP/1.1 101 Switching Protocols\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n",
        // Status lines near the usual one (read at once when whole, byte by byte when split).
        "HTTP/1.1 099 Low\r\n\r\n", "HTTP/1.x 200 OK\r\n\r\n", "HTTP/1.1  200 OK\r\n\r\n", "HTTP/1.1 2a0 OK\r\n\r\n",
        "HTTP/1.1 200\n\r\n", "HTTP/1.1 200\r\r\n", "HTTP/1,1 200 OK\r\n\r\n", "http/1.1 200 OK\r\n\r\n",
    ])
    func malformedResponsesAreErrors(wire: String) {
        #expect(ResponseFeeding.responses(wire).error != nil)
    }
}
