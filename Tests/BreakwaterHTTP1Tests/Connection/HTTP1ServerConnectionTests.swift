// The server connection's rules on a manual clock, no sockets, no sleeps: pipelining order,
// the backpressure bounds, the header, body and idle deadlines, lingering and immediate close,
// Connection: close and HTTP/1.0, and every refusal. Each scenario is fed in one buffer, one
// buffer per message and one byte at a time, and must come out the same.

import BreakwaterHTTP1
import Testing

private func get(_ target: String, _ extra: String = "") -> String {
    "GET \(target) HTTP/1.1\r\nHost: a\r\n\(extra)\r\n"
}

private func post(_ target: String, _ body: String) -> String {
    "POST \(target) HTTP/1.1\r\nHost: a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

@Suite struct HTTP1ServerConnectionTests {
    // MARK: Pipelining

    @Test(arguments: Feed.allCases)
    func answersCompletingOutOfOrderAreWrittenInRequestOrder(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a"), post("/b", "xyz"), get("/c")], feed)
        #expect(driver.dispatched == ["/a", "/b", "/c"])
        #expect(driver.bodies == ["", "xyz", ""])
        driver.answer(2)
        #expect(driver.written == [])
        driver.answer(0)
        #expect(driver.written == ["/a"])
        driver.answer(0)  // a second answer to the same request is ignored
        driver.answer(1)
        #expect(driver.written == ["/a", "/b", "/c"])
        #expect(driver.end == .open)
        #expect(driver.noDelaySet == 1)
    }

    @Test(arguments: Feed.allCases)
    func answersGivenInsideTheReadAreWrittenOnceAtItsEnd(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")], feed)
        driver.answer(0)
        #expect(driver.written == ["/a"])
        #expect(driver.unsent == 0)
    }

    @Test(arguments: Feed.allCases)
    func headAnswersOmitTheirBody(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send(["HEAD / HTTP/1.1\r\nHost: a\r\n\r\n", get("/g")], feed)
        driver.answerAll()
        #expect(driver.framings.map(\.omitsBody) == [true, false])
    }

    @Test(arguments: Feed.allCases)
    func continueIsSentOnlyWhenNothingIsQueuedBeforeTheBody(feed: Feed) {
        let expecting = "POST /p HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nok"
        let alone = ServerConnectionDriver()
        alone.send([expecting], feed)
        #expect(alone.continues == 1)
        let behind = ServerConnectionDriver()
        behind.send([get("/a"), expecting], feed)
        #expect(behind.continues == 0)
        #expect(behind.dispatched == ["/a", "/p"])
    }

    // MARK: Backpressure

    @Test(arguments: Feed.allCases)
    func readingPausesAtTheOutstandingBoundAndResumesWhenAnAnswerIsWritten(feed: Feed) {
        var configuration = ServerConnectionDriver.configuration
        configuration.maxOutstanding = 3
        let driver = ServerConnectionDriver(configuration: configuration)
        driver.send((0..<5).map { get("/\($0)") }, feed)
        #expect(driver.dispatched == ["/0", "/1", "/2"])
        #expect(!driver.isReading)
        driver.answer(0)
        // One slot freed: one more request read, and the bound reached again.
        #expect(driver.dispatched == ["/0", "/1", "/2", "/3"])
        #expect(!driver.isReading)
        driver.answerAll()
        driver.answerAll()
        #expect(driver.dispatched == ["/0", "/1", "/2", "/3", "/4"])
        #expect(driver.written == ["/0", "/1", "/2", "/3", "/4"])
        #expect(driver.isReading)
    }

    /// The unsent-bytes bound: at most maxUnsentBytes queued keeps reading on, one byte more
    /// pauses it, and the client reading back under the bound resumes it.
    @Test(arguments: Feed.allCases)
    func readingPausesPastTheUnsentBoundAndResumesBelowIt(feed: Feed) {
        var configuration = ServerConnectionDriver.configuration
        configuration.maxUnsentBytes = 1000
        let driver = ServerConnectionDriver(configuration: configuration)
        driver.socketRoom = 0
        driver.answerSize = 500
        driver.send([get("/a"), get("/b"), get("/c")], feed)
        driver.answer(0)
        driver.answer(1)
        #expect(driver.unsent == 1000)
        #expect(driver.isReading)
        driver.answerSize = 1
        driver.answer(2)
        #expect(driver.unsent == 1001)
        #expect(!driver.isReading)
        #expect(driver.pauses == 1)
        driver.clientReads(1)
        #expect(driver.unsent == 1000)
        #expect(driver.isReading)
        #expect(driver.resumes == 1)
    }

    @Test(arguments: Feed.allCases)
    func requestsSentWhilePausedAreReadOnResume(feed: Feed) {
        var configuration = ServerConnectionDriver.configuration
        configuration.maxOutstanding = 1
        let driver = ServerConnectionDriver(configuration: configuration)
        driver.send([get("/a")], feed)
        driver.send([get("/b"), get("/c")], feed)
        #expect(driver.dispatched == ["/a"])
        driver.answer(0)
        #expect(driver.dispatched == ["/a", "/b"])
        driver.answer(1)
        driver.answer(2)
        #expect(driver.written == ["/a", "/b", "/c"])
    }

    // MARK: Deadlines

    /// The header deadline runs from a head's first byte: bytes trickled one a second do not
    /// move it.
    @Test func trickledHeadIsRefusedWith408AtTheHeaderDeadline() {
        let driver = ServerConnectionDriver()
        driver.advance(by: seconds(5))
        driver.trickle("GET / HTTP/1.1\r\nHost: a\r\nX-Slow: yes\r\n", every: seconds(1))
        #expect(driver.written == ["408"])
        #expect(driver.now == seconds(15))
        #expect(driver.end == .lingering)
        #expect(driver.dispatched == [])
    }

    @Test func headCompleteJustInsideTheDeadlineIsDispatched() {
        let driver = ServerConnectionDriver()
        let head = get("/ok")
        // The last byte arrives at 9.9 s after the first.
        driver.trickle(head, every: seconds(9.9) / Int64(head.utf8.count - 1))
        #expect(driver.dispatched == ["/ok"])
        #expect(driver.written == [])
        driver.advance(by: seconds(30))
        #expect(driver.written == [])
        #expect(driver.end == .open)
    }

    @Test func trickledBodyIsRefusedWith408AtTheBodyDeadline() {
        let driver = ServerConnectionDriver()
        driver.send(["POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n"])
        driver.trickle("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz", every: seconds(1))
        #expect(driver.written == ["408"])
        #expect(driver.now == seconds(30))
        #expect(driver.dispatched == [])
    }

    @Test func idleKeepAliveConnectionClosesWithoutAnAnswer() {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")])
        driver.advance(by: seconds(5))
        driver.answer(0)
        // 60 s after the answer went out, not after the request came.
        driver.advance(by: seconds(59.9))
        #expect(driver.end == .open)
        driver.advance(by: seconds(0.2))
        #expect(driver.end == .closed)
        #expect(driver.written == ["/a"])
    }

    @Test func anAnswerBeingWaitedForHasNoIdleDeadline() {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")])
        driver.advance(by: seconds(600))
        #expect(driver.end == .open)
        driver.answer(0)
        #expect(driver.written == ["/a"])
    }

    @Test func aClientThatStopsReadingIsClosedAtTheIdleDeadline() {
        let driver = ServerConnectionDriver()
        driver.socketRoom = 0
        driver.send([get("/a")])
        driver.answer(0)
        driver.advance(by: seconds(59))
        #expect(driver.end == .open)
        driver.advance(by: seconds(2))
        #expect(driver.end == .closed)
    }

    // MARK: Quiescing (the server's drain)

    /// An idle keep-alive connection closes at once, lingering: a request that crossed the
    /// close is dropped unread (the client meets a clean end of stream and may send it again).
    @Test(arguments: Feed.allCases)
    func anIdleConnectionLingersAtOnceWhenQuiescedAndTakesNoCrossingRequest(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")], feed)
        driver.answer(0)
        #expect(driver.end == .open)
        driver.quiesce()
        #expect(driver.end == .lingering)
        driver.send([get("/b")], feed)
        #expect(driver.dispatched == ["/a"])
        #expect(driver.framings.map(\.keepAlive) == [true])
        driver.advance(by: seconds(2.1))
        #expect(driver.end == .closed)
    }

    @Test func anIdleConnectionThatCannotLingerClosesAtOnceWhenQuiesced() {
        var configuration = ServerConnectionDriver.configuration
        configuration.canLinger = false
        let driver = ServerConnectionDriver(configuration: configuration)
        driver.send([get("/a")])
        driver.answer(0)
        driver.quiesce()
        #expect(driver.end == .closed)
    }

    /// A connection the drain finds before its first request (its client has just connected and
    /// is sending it) takes that request and answers it with `Connection: close`: a first request
    /// on a connection is one no client sends again.
    @Test(arguments: Feed.allCases)
    func aConnectionQuiescedBeforeItsFirstRequestTakesItAndCloses(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.quiesce()
        #expect(driver.end == .open)
        driver.advance(by: seconds(0.5))
        driver.send([get("/a"), get("/b")], feed)
        #expect(driver.dispatched == ["/a"])
        driver.answer(0)
        #expect(driver.framings.map(\.keepAlive) == [false])
        #expect(driver.end == .lingering)
    }

    /// ... but only for `firstRequestWait`: one that sends nothing meanwhile is closed.
    @Test func aConnectionQuiescedBeforeItsFirstRequestClosesWhenNoneComes() {
        let driver = ServerConnectionDriver()
        driver.quiesce()
        driver.advance(by: seconds(0.9))
        #expect(driver.end == .open)
        driver.advance(by: seconds(0.2))
        #expect(driver.end == .closed)
        #expect(driver.dispatched.isEmpty)
    }

    /// The answer awaited when the drain begins says `Connection: close`, and the connection
    /// ends once it is written; a request pipelined after it is not taken.
    @Test(arguments: Feed.allCases)
    func theAnswerInFlightSaysConnectionCloseAndRequestsAfterItAreNotTaken(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")], feed)
        driver.quiesce()
        #expect(driver.end == .open)
        driver.send([get("/b")], feed)
        #expect(driver.dispatched == ["/a"])
        driver.answer(0)
        #expect(driver.written == ["/a"])
        #expect(driver.framings.map(\.keepAlive) == [false])
        #expect(driver.end == .lingering)
    }

    /// Of requests pipelined before the drain, only the last taken closes the connection.
    @Test(arguments: Feed.allCases)
    func onlyTheLastPipelinedAnswerSaysConnectionClose(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a"), get("/b"), get("/c")], feed)
        driver.quiesce()
        driver.answer(2)
        driver.answer(0)
        #expect(driver.end == .open)
        driver.answer(1)
        #expect(driver.written == ["/a", "/b", "/c"])
        #expect(driver.framings.map(\.keepAlive) == [true, true, false])
        #expect(driver.end == .lingering)
    }

    /// A request still arriving when the drain begins (head or body) is taken and answered
    /// with `Connection: close`; the one after it is not.
    @Test(arguments: Feed.allCases)
    func aRequestStillArrivingIsTakenAndItsAnswerClosesTheConnection(feed: Feed) {
        for (first, rest) in [
            ("GET /a HTTP/1.1\r\nHo", "st: a\r\n\r\n"),
            ("POST /a HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nx", "yz"),
        ] {
            let driver = ServerConnectionDriver()
            driver.send([first], feed)
            driver.quiesce()
            #expect(driver.end == .open)
            driver.send([rest, get("/b")], feed)
            #expect(driver.dispatched == ["/a"])
            driver.answerAll()
            #expect(driver.framings.map(\.keepAlive) == [false])
            #expect(driver.end == .lingering)
        }
    }

    /// An HTTP/1.0 keep-alive answer awaited at the drain no longer says `keep-alive`.
    @Test func anHTTP10KeepAliveAnswerAwaitedAtTheDrainClosesTheConnection() {
        let driver = ServerConnectionDriver()
        driver.send(["GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"])
        driver.quiesce()
        driver.answer(0)
        #expect(driver.framings == [.closing])
        #expect(driver.end == .lingering)
    }

    /// An idle connection whose last answer is still going out ends once it is written.
    @Test func anAnswerStillGoingOutIsWrittenBeforeTheQuiescedConnectionLingers() {
        let driver = ServerConnectionDriver()
        driver.socketRoom = 0
        driver.send([get("/a")])
        driver.answer(0)
        driver.quiesce()
        #expect(driver.end == .open)
        driver.clientReads(100)
        #expect(driver.unsent == 0)
        #expect(driver.end == .lingering)
    }

    /// A connection ending already (the client asked to close) ends as it would have.
    @Test func quiescingAConnectionThatAlreadyEndsChangesNothing() {
        let driver = ServerConnectionDriver()
        driver.send([get("/a", "Connection: close\r\n")])
        driver.quiesce()
        #expect(driver.end == .open)
        driver.answer(0)
        #expect(driver.framings.map(\.keepAlive) == [false])
        #expect(driver.end == .closed)
    }

    // MARK: Ending

    @Test(arguments: Feed.allCases)
    func connectionCloseAfterADrainedReadClosesAtOnce(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a", "Connection: close\r\n")], feed)
        driver.answer(0)
        #expect(driver.framings.map(\.keepAlive) == [false])
        #expect(driver.end == .closed)
        #expect(driver.noDelaySet == 0)
    }

    /// Bytes after a closing request are never read as a request; a close now could reset the
    /// connection before the client reads its answer: the connection lingers.
    @Test(arguments: Feed.allCases)
    func bytesAfterConnectionCloseAreNotReadAndTheConnectionLingers(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a", "Connection: close\r\n"), get("/b")], feed)
        #expect(driver.dispatched == ["/a"])
        driver.answer(0)
        #expect(driver.end == .lingering)
        driver.advance(by: seconds(1.9))
        #expect(driver.end == .lingering)
        driver.advance(by: seconds(0.2))
        #expect(driver.end == .closed)
    }

    @Test func aFilledReadBeforeConnectionCloseLingers() {
        let driver = ServerConnectionDriver()
        let request = Array(get("/a", "Connection: close\r\n").utf8)
        driver.readSpace = request.count
        driver.read(request)
        driver.answer(0)
        #expect(driver.end == .lingering)
    }

    @Test func withoutLingeringTheConnectionClosesAfterARefusal() {
        var configuration = ServerConnectionDriver.configuration
        configuration.canLinger = false
        let driver = ServerConnectionDriver(configuration: configuration)
        driver.send(["BAD\r\n\r\n"])
        #expect(driver.written == ["400"])
        #expect(driver.end == .closed)
    }

    @Test(arguments: Feed.allCases)
    func http10WithoutKeepAliveEndsAfterItsAnswer(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send(["GET /a HTTP/1.0\r\n\r\n", get("/b")], feed)
        driver.answerAll()
        #expect(driver.written == ["/a"])
        #expect(driver.framings == [.closing])
        #expect(driver.end != .open)
    }

    @Test(arguments: Feed.allCases)
    func http10KeepAliveStaysOpenAndSaysSo(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send(["GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", get("/b")], feed)
        driver.answerAll()
        #expect(driver.written == ["/a", "/b"])
        #expect(driver.framings.map(\.http10KeepAlive) == [true, false])
        #expect(driver.end == .open)
    }

    @Test(arguments: Feed.allCases)
    func aHalfClosedClientStillGetsItsAnswersThenTheConnectionCloses(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a"), get("/b")], feed)
        driver.clientCloses()
        #expect(driver.end == .open)
        driver.answer(1)
        driver.answer(0)
        #expect(driver.written == ["/a", "/b"])
        #expect(driver.end == .closed)
    }

    /// An answer still queued for the socket is written before the close.
    @Test func aHalfClosedClientGetsTheAnswerStillQueued() {
        let driver = ServerConnectionDriver()
        driver.socketRoom = 0
        driver.send([get("/a")])
        driver.answer(0)
        driver.clientCloses()
        #expect(driver.end == .open)
        driver.clientReads(100)
        #expect(driver.unsent == 0)
        #expect(driver.end == .closed)
    }

    @Test func aClientClosingWithNothingOutstandingClosesAtOnce() {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")])
        driver.answer(0)
        driver.clientCloses()
        #expect(driver.end == .closed)
    }

    @Test func answersAfterTheCloseAreIgnored() {
        let driver = ServerConnectionDriver()
        driver.send([get("/a")])
        driver.advance(by: seconds(1))
        let machine = driver.machine
        machine.close()
        #expect(machine.answerReady(0) == .ignore)
        #expect(machine.readable() == .ignore)
        #expect(machine.nextDeadline() == nil)
    }

    // MARK: Refusals

    struct Refusal: CustomTestStringConvertible, Sendable {
        let name: String
        let wire: String
        let status: String
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "bad request line", wire: "GET/ HTTP/1.1\r\n\r\n", status: "400"),
        Refusal(name: "missing Host", wire: "GET / HTTP/1.1\r\n\r\n", status: "400"),
        Refusal(name: "body over the limit", wire: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 65\r\n\r\n", status: "413"),
        Refusal(name: "target over the limit", wire: "GET /\(String(repeating: "t", count: 40)) HTTP/1.1\r\n", status: "414"),
        Refusal(name: "head over the limit", wire: "GET / HTTP/1.1\r\nHost: a\r\nX: \(String(repeating: "h", count: 120))\r\n\r\n", status: "431"),
        Refusal(name: "unsupported transfer coding", wire: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", status: "501"),
    ]

    static let smallLimits = HTTP1RequestLimits(maxTargetBytes: 32, maxHeadBytes: 100, maxBodyBytes: 64)

    /// A refusal is written after the answers before it, nothing after it is read, and the
    /// connection lingers (the client may still be sending).
    @Test(arguments: refusals, Feed.allCases)
    func refusalIsAnsweredInOrderAndEndsTheConnection(refusal: Refusal, feed: Feed) {
        let driver = ServerConnectionDriver(limits: Self.smallLimits)
        driver.send([get("/first"), refusal.wire, get("/never")], feed)
        #expect(driver.dispatched == ["/first"])
        #expect(driver.written == [])
        driver.answer(0)
        #expect(driver.written == ["/first", refusal.status])
        #expect(driver.framings.last == .closing)
        #expect(driver.end == .lingering)
        driver.advance(by: seconds(3))
        #expect(driver.end == .closed)
    }

    @Test(arguments: Feed.allCases)
    func timeoutRefusalIsWrittenAfterTheAnswersBeforeIt(feed: Feed) {
        let driver = ServerConnectionDriver()
        driver.send([get("/a"), "GET /b HTTP/1.1\r\n"], feed)
        driver.advance(by: seconds(11))
        #expect(driver.written == [])
        driver.answer(0)
        #expect(driver.written == ["/a", "408"])
        #expect(driver.end == .lingering)
    }
}
