// The origin connection's rules without a socket: framing verdicts on the answer, 1xx skipped,
// reuse after a complete answer only, bytes or a close while idle in the pool, and which failures
// go once more. Each answer is fed in one buffer, one buffer per message and one byte at a time.

import BreakwaterHTTP1
import Testing

/// What became of an exchange on one connection.
private struct ClientOutcome: Equatable {
    var status: Int?
    var body = ""
    /// `reused`, `closed`, `failed <why>`, or `waiting`.
    var end = "waiting"
    var retries = false
}

/// Performs the machine's steps the way the origin connection does, over a byte array.
private struct ClientDriver {
    var machine = HTTP1ClientConnection(maxResponseBytes: 64)
    var buffer: [UInt8] = []
    var outcome = ClientOutcome()
    var mayRetry = true

    /// A connection that carried `previous` exchanges, now given one more.
    init(previous: Int = 0, toHEAD: Bool = false) {
        let result1 = machine.exchangeStarted(toHEAD: false)
        #expect(result1 == false)
        let result2 = machine.connected(succeeded: true)
        #expect(result2 == .startExchange)
        for _ in 0..<previous {
            send("HTTP/1.1 204 No Content\r\n\r\n")
            outcome = ClientOutcome()
            let result3 = machine.exchangeStarted(toHEAD: toHEAD)
            #expect(result3)
        }
        if previous == 0, toHEAD {
            machine = HTTP1ClientConnection(maxResponseBytes: 64)
            _ = machine.exchangeStarted(toHEAD: true)
            _ = machine.connected(succeeded: true)
        }
    }

    mutating func send(_ text: String) { read(Array(text.utf8)) }

    mutating func read(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, !machine.isClosed else { return }
        guard machine.bytesRead() else { return outcome.end = "closed" }
        buffer += bytes
        while true {
            let step = buffer.withUnsafeBufferPointer { machine.nextResponseStep(in: $0) }
            if step == .needMore || step == .stop { break }
            perform(step)
        }
        let unneeded = machine.retainedFrom
        buffer.removeFirst(unneeded)
        machine.discard(unneeded)
    }

    mutating func originCloses() {
        guard !machine.isClosed else { return }
        perform(machine.readEOF(buffered: buffer.count))
    }

    mutating func perform(_ step: HTTP1ClientConnection.ResponseStep) {
        switch step {
        case .needMore: break
        case .stop: outcome.end = "closed"
        case .head: outcome.status = machine.head.status
        case .body(let range): outcome.body += String(decoding: buffer[range], as: UTF8.self)
        case .complete(let reuses): outcome.end = reuses ? "reused" : "closed"
        case .fail(let failure):
            outcome.end = "failed \(failure)"
            outcome.retries = machine.failed(mayRetry: mayRetry)
        }
    }
}

@Suite struct HTTP1ClientConnectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        /// The origin's bytes, message by message.
        let messages: [String]
        var originClosesAfter = false
        var toHEAD = false
        var previous = 0
        let status: Int?
        var body = ""
        let end: String
        var retries = false
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "length-delimited answer is reused",
             messages: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"], status: 200, body: "hello", end: "reused"),
        Case(name: "chunked answer is reused",
             messages: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhe\r\n3\r\nllo\r\n0\r\n\r\n"],
             status: 200, body: "hello", end: "reused"),
        Case(name: "Connection: close answer is not reused",
             messages: ["HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"], status: 200, body: "ok",
             end: "closed"),
        Case(name: "HTTP/1.0 answer is not reused",
             messages: ["HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"], status: 200, body: "ok", end: "closed"),
        Case(name: "interim answers are skipped",
             messages: ["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
                        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"], status: 200, body: "x", end: "reused"),
        Case(name: "bytes after the answer end the connection",
             messages: ["HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", "HTTP/1.1 200 OK\r\n"], status: 200, body: "x",
             end: "closed"),
        Case(name: "close-delimited body ends at the close",
             messages: ["HTTP/1.1 200 OK\r\n\r\nuntil close"], originClosesAfter: true, status: 200, body: "until close",
             end: "closed"),
        Case(name: "HEAD answer has no body whatever its length says",
             messages: ["HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"], toHEAD: true, status: 200, end: "reused"),
        Case(name: "truncated body fails and is not retried",
             messages: ["HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort"], originClosesAfter: true, previous: 1,
             status: 200, body: "short", end: "failed closedEarly"),
        Case(name: "reused connection closed before any byte is retried",
             messages: [], originClosesAfter: true, previous: 1, status: nil, end: "failed closedEarly", retries: true),
        Case(name: "fresh connection closed before any byte is not retried",
             messages: [], originClosesAfter: true, status: nil, end: "failed closedEarly"),
        Case(name: "body over the bound fails",
             messages: ["HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n\(String(repeating: "a", count: 64))\r\n1\r\nb\r\n0\r\n\r\n"],
             status: 200, body: String(repeating: "a", count: 64), end: "failed malformed(the body is over max_body_bytes)"),
        Case(name: "malformed status line fails",
             messages: ["HTTP/1.1 2x0 OK\r\n\r\n"], status: nil,
             end: "failed malformed(the status line is not HTTP/1.x SP 3DIGIT)"),
        Case(name: "101 fails",
             messages: ["HTTP/1.1 101 Switching Protocols\r\n\r\n"], status: nil,
             end: "failed malformed(a status the client did not ask for (101 Switching Protocols))"),
    ]

    @Test(arguments: cases, Feed.allCases)
    func answerIsFramedTheSameHoweverItArrives(testCase: Case, feed: Feed) {
        var driver = ClientDriver(previous: testCase.previous, toHEAD: testCase.toHEAD)
        for bytes in feed.reads(testCase.messages) { driver.read(bytes) }
        if testCase.originClosesAfter { driver.originCloses() }
        #expect(driver.outcome == ClientOutcome(
            status: testCase.status, body: testCase.body, end: testCase.end, retries: testCase.retries))
    }

    @Test func retriedOnceOnly() {
        var driver = ClientDriver(previous: 1)
        driver.mayRetry = false
        driver.originCloses()
        #expect(driver.outcome.retries == false)
    }

    /// The origin closing a connection that waits in the pool hurts no exchange.
    @Test func closeWhileIdleInThePoolJustCloses() {
        var driver = ClientDriver(previous: 1)
        let idle = HTTP1ClientConnection(maxResponseBytes: 64)
        _ = idle.connected(succeeded: true)
        #expect(idle.isIdle)
        let result4 = idle.readEOF(buffered: 0)
        #expect(result4 == .stop)
        #expect(idle.isClosed)
        _ = driver
    }

    @Test func bytesWhileIdleCloseTheConnection() {
        let idle = HTTP1ClientConnection(maxResponseBytes: 64)
        _ = idle.connected(succeeded: true)
        let result5 = idle.bytesRead()
        #expect(result5 == false)
        #expect(idle.isClosed)
    }

    @Test func failedConnectIsNotRetried() {
        let connection = HTTP1ClientConnection(maxResponseBytes: 64)
        let result6 = connection.exchangeStarted(toHEAD: false)
        #expect(result6 == false)
        let result7 = connection.connected(succeeded: false)
        #expect(result7 == .fail(.cannotConnect))
        let result8 = connection.failed(mayRetry: true)
        #expect(result8 == false)
        #expect(connection.isClosed)
    }
}
