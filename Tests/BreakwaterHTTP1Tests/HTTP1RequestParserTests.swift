// The request parser against every framing rule of RFC 9112 that Breakwater applies (README, "The
// HTTP/1.1 engine"), each case fed all at once,
// byte by byte and in random slices (Feeding), with pipelined requests in one buffer.

import BreakwaterHTTP1
import Testing

@Suite struct HTTP1RequestParserTests {
    // MARK: Accepted requests

    @Test func getWithHeadersParsesMethodTargetAndTrimmedValues() {
        let outcome = Feeding.requests("GET /graphql?query=%7B%20me%20%7D HTTP/1.1\r\nHost: a\r\nX-Pad:  v w \t\r\nEmpty:\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests == [
            ParsedRequest(
                method: "GET", target: "/graphql?query=%7B%20me%20%7D",
                headers: ["Host: a", "X-Pad: v w", "Empty: "]),
        ])
    }

    /// The target is scanned eight bytes at a time: a bad byte is found at every offset of a
    /// word, and a long target of every visible character is taken whole.
    @Test func targetScanFindsABadByteAtEveryOffset() {
        let visible = (0x21...0x7E).map { Character(UnicodeScalar(UInt8($0))) }
        let long = "/" + String(visible) + String(visible)
        let accepted = Feeding.requests("GET \(long) HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(accepted.error == nil)
        #expect(accepted.requests.map(\.target) == [long])
        for bad: UInt8 in [0x00, 0x09, 0x1F, 0x7F, 0x80, 0xFF] {
            for offset in 1..<40 {
                var target = Array(("/" + String(repeating: "a", count: 39)).utf8)
                target[offset] = bad
                let wire = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
                let outcome = Feeding.requests(wire, limits: HTTP1RequestLimits(), pieces: [wire.count])
                #expect(outcome.error != nil && outcome.requests.isEmpty, "byte \(bad) at \(offset)")
            }
        }
    }

    @Test func postWithContentLengthCarriesItsBody() {
        let outcome = Feeding.requests("POST /graphql HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n{\"query\":1}")
        #expect(outcome.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["{\"query\":1}"])
    }

    @Test func chunkedBodyIsDecodedWithExtensionsAndTrailersDropped() {
        let outcome = Feeding.requests(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\nB ; x\r\n, world!!!!\r\n0\r\nX-Trailer: t\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello, world!!!!"])
    }

    @Test func pipelinedRequestsComeOutInOrder() {
        let one = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
        let two = "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
        let three = "POST /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n"
        let outcome = Feeding.requests(one + two + three + one)
        #expect(outcome.requests.map(\.target) == ["/1", "/2", "/3", "/1"])
        #expect(outcome.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["", "abc", "de", ""])
    }

    @Test func emptyLinesBeforeARequestLineAreIgnored() {
        let outcome = Feeding.requests("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/"])
    }

    @Test func identicalDuplicateContentLengthsAreAccepted() {
        let outcome = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok")
        #expect(outcome.error == nil)
        #expect(outcome.requests.first?.body == Array("ok".utf8))
    }

    // MARK: Connection handling

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", true),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, Close\r\n\r\n", false),
        ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", true),
    ])
    func keepAliveFollowsVersionAndConnection(wire: String, keepAlive: Bool) {
        let outcome = Feeding.requests(wire)
        #expect(outcome.error == nil)
        #expect(outcome.requests.map(\.keepAlive) == [keepAlive])
    }

    @Test func http10WithoutHostIsAccepted() {
        #expect(Feeding.requests("GET / HTTP/1.0\r\n\r\n").requests.map(\.minorVersion) == [0])
    }

    @Test func expectContinueIsReportedForABody() {
        let outcome = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx")
        #expect(outcome.requests.map(\.expectsContinue) == [true])
    }

    // MARK: Framing verdicts

    @Test(arguments: ["chunked", "gzip", "chunked, gzip"])
    func contentLengthWithTransferEncodingIsBadRequest(coding: String) {
        let outcome = Feeding.requests(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: \(coding)\r\n\r\n0\r\n\r\n")
        #expect(outcome.error == .contentLengthWithTransferEncoding)
        #expect(outcome.status == 400)
        #expect(outcome.requests.isEmpty)
    }

    @Test func differingContentLengthsAreBadRequestAndNoSecondRequestIsRead() {
        let outcome = Feeding.requests(
            "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 40\r\n\r\nabcGET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.error == .conflictingContentLength)
        #expect(outcome.status == 400)
        #expect(outcome.requests.isEmpty)
    }

    @Test(arguments: ["+74", "-1", "0x10", "1 2", "", "7,7", "1.0", "99999999999999999999"])
    func contentLengthThatIsNotPlainDecimalIsBadRequest(value: String) {
        let outcome = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \(value)\r\n\r\n")
        #expect(outcome.error == .badContentLength)
        #expect(outcome.status == 400)
    }

    @Test(arguments: ["gzip", "gzip, chunked", "chunked, chunked", "identity", "chunked;q=1"])
    func transferEncodingOtherThanChunkedIsNotImplemented(coding: String) {
        let outcome = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \(coding)\r\n\r\n")
        #expect(outcome.error == .unsupportedTransferEncoding)
        #expect(outcome.status == 501)
    }

    @Test func twoTransferEncodingFieldsAreNotImplemented() {
        let outcome = Feeding.requests(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n")
        #expect(outcome.status == 501)
    }

    @Test func transferEncodingInHTTP10IsBadRequest() {
        let outcome = Feeding.requests("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        #expect(outcome.error == .transferEncodingInHTTP10)
    }

    @Test(arguments: ["\r\n X-Folded: yes", "\r\n\tmore"])
    func obsoleteLineFoldingIsBadRequest(fold: String) {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\(fold)\r\n\r\n")
        #expect(outcome.error == .obsoleteLineFolding)
        #expect(outcome.status == 400)
    }

    @Test func whitespaceBeforeTheFirstFieldIsBadRequest() {
        #expect(Feeding.requests("GET / HTTP/1.1\r\n Host: a\r\n\r\n").status == 400)
    }

    @Test(arguments: ["Name : value", "Na me: value", "\u{1}X: value", ": value", "X(y): value", "Ünï: value", "NoColon"])
    func badHeaderNamesAreBadRequest(line: String) {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nHost: a\r\n\(line)\r\n\r\n")
        #expect(outcome.error == .badHeaderName || outcome.error == .obsoleteLineFolding)
        #expect(outcome.status == 400)
    }

    @Test(arguments: ["a\rb", "a\u{0}b", "a\nX-B: b", "a\u{7F}", "a\u{1B}b"])
    func controlCharactersInHeaderValuesAreBadRequest(value: String) {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nHost: a\r\nX-A: \(value)\r\n\r\n")
        #expect(outcome.error == .badHeaderValue)
        #expect(outcome.status == 400)
    }

    @Test(arguments: [
        "GET  / HTTP/1.1", "GET / HTTP/1.1 ", "GET / HTTP/1.1\n", "GET /", "GET / http/1.1", "GET\t/ HTTP/1.1",
        "/ HTTP/1.1", " GET / HTTP/1.1", "GET / HTTP/1.1junk", "G(T / HTTP/1.1",
    ])
    func malformedRequestLinesAreBadRequest(line: String) {
        let outcome = Feeding.requests("\(line)\r\nHost: a\r\n\r\n")
        #expect(outcome.status == 400, "\(outcome)")
        #expect(outcome.requests.isEmpty)
    }

    @Test(arguments: ["HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "HTTP/1.10", "HTTP/1.1 ", "HTTP/1.1\n", "http/1.1", "HTTP/1,1"])
    func versionsOtherThan10And11AreBadRequest(version: String) {
        #expect(Feeding.requests("GET / \(version)\r\nHost: a\r\n\r\n").status == 400)
    }

    @Test(arguments: ["/a b", "/a\u{1}b", "/a\u{7F}", "/é"])
    func rawSpaceOrControlInTheTargetIsBadRequest(target: String) {
        let outcome = Feeding.requests("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.status == 400)
        #expect(outcome.requests.isEmpty)
    }

    @Test(arguments: ["graphql", ":", "9", "*x", "?q", "127.0.0.1:443", "[::1]:443"])
    func targetsOfNoRequestFormAreBadRequest(target: String) {
        #expect(Feeding.requests("GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n").error == .badTargetForm)
    }

    /// RFC 9112 3.2.3: CONNECT names a host and port; the request reaches the handler (which
    /// refuses the method) and the connection ends after the answer, since what follows a
    /// CONNECT's head may be tunnel bytes.
    @Test(arguments: ["example.com:443", "127.0.0.1:443", "[::1]:8443", "a:"])
    func connectWithAnAuthorityFormTargetIsParsedAndClosesTheConnection(target: String) {
        let outcome = Feeding.requests("CONNECT \(target) HTTP/1.1\r\nHost: \(target)\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests.map(\.method) == ["CONNECT"])
        #expect(outcome.requests.first?.target == target)
        #expect(outcome.requests.first?.keepAlive == false)
    }

    @Test(arguments: ["CONNECT example.com", "CONNECT :443", "connect 127.0.0.1:443", "CONNECTS 127.0.0.1:443"])
    func connectWithoutHostAndPortIsABadTargetForm(line: String) {
        #expect(Feeding.requests("\(line) HTTP/1.1\r\nHost: a\r\n\r\n").error == .badTargetForm)
    }

    @Test(arguments: ["/", "*", "http://a.example/graphql", "a.example:443"])
    func originAsteriskAndAbsoluteFormsAreAccepted(target: String) {
        #expect(Feeding.requests("OPTIONS \(target) HTTP/1.1\r\nHost: a\r\n\r\n").requests.map(\.target) == [target])
    }

    @Test func twoHostHeadersAreBadRequest() {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n")
        #expect(outcome.error == .duplicateHost)
        #expect(outcome.status == 400)
    }

    @Test func http11WithoutHostIsBadRequest() {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nX-A: 1\r\n\r\n")
        #expect(outcome.error == .missingHost)
        #expect(outcome.status == 400)
    }

    @Test(arguments: [
        "G\u{0}T / HTTP/1.1\r\nHost: a\r\n\r\n", "GET /\u{0} HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\u{0}\r\nHost: a\r\n\r\n", "GET / HTTP/1.1\r\nHo\u{0}st: a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\u{0}\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\n\u{0}\r\n\r\n",
    ])
    func nulAnywhereInTheHeadIsBadRequest(wire: String) {
        let outcome = Feeding.requests(wire)
        #expect(outcome.status == 400, "\(outcome)")
        #expect(outcome.requests.isEmpty)
    }

    // MARK: Limits

    @Test func targetOfExactlyTheLimitIsAcceptedAndOneMoreIsURITooLong() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 64, maxHeadBytes: 256, maxBodyBytes: 16)
        let atLimit = "/" + String(repeating: "a", count: 63)
        #expect(Feeding.requests("GET \(atLimit) HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits).requests.count == 1)
        let over = Feeding.requests("GET \(atLimit)b HTTP/1.1\r\nHost: a\r\n\r\n", limits: limits)
        #expect(over.error == .targetTooLong)
        #expect(over.status == 414)
    }

    @Test func targetOverTheLimitIsRefusedBeforeItEnds() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 8, maxHeadBytes: 256, maxBodyBytes: 16)
        // No line end ever arrives: the verdict cannot wait for one.
        #expect(Feeding.requests("GET /0123456789", limits: limits).status == 414)
    }

    @Test func headOfExactlyTheLimitIsAcceptedAndOneMoreIsTooLarge() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 16, maxHeadBytes: 64, maxBodyBytes: 16)
        let line = "GET / HTTP/1.1\r\nHost: a\r\n"  // 25 bytes
        let fill = String(repeating: "x", count: 64 - 25 - 7)  // "X-P: " + fill + CRLF
        #expect(Feeding.requests(line + "X-P: \(fill)\r\n\r\n", limits: limits).requests.count == 1)
        let over = Feeding.requests(line + "X-P: \(fill)y\r\n\r\n", limits: limits)
        #expect(over.error == .headTooLarge)
        #expect(over.status == 431)
    }

    @Test func headThatNeverEndsIsTooLargeOnceOverTheLimit() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 16, maxHeadBytes: 64, maxBodyBytes: 16)
        #expect(Feeding.requests("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 100), limits: limits).status == 431)
    }

    @Test func contentLengthOverTheLimitIsTooLargeBeforeTheBodyArrives() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 16, maxHeadBytes: 256, maxBodyBytes: 10)
        #expect(Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits).requests.count == 1)
        let over = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\n", limits: limits)
        #expect(over.error == .bodyTooLarge)
        #expect(over.status == 413)
    }

    @Test func chunkedBodyOverTheLimitIsTooLarge() {
        let limits = HTTP1RequestLimits(maxTargetBytes: 16, maxHeadBytes: 256, maxBodyBytes: 10)
        let head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(Feeding.requests(head + "5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", limits: limits).requests.count == 1)
        #expect(Feeding.requests(head + "5\r\n01234\r\n6\r\n", limits: limits).status == 413)
    }

    // MARK: Chunked syntax

    @Test(arguments: ["x\r\n", "5\r\nhelloXX", "\r\n", "1111111111111111\r\n", "5\nhello\r\n", "5 \u{1}\r\n", "0 \r\n\r\n", "5 x\r\n"])
    func malformedChunksAreBadRequest(chunk: String) {
        let outcome = Feeding.requests("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk)
        #expect(outcome.error == .badChunk)
        #expect(outcome.status == 400)
    }

    // RFC 9112 7.1.1: chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] ),
    // a name a token, a value a token or a quoted-string.
    static let chunkedHead = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test(arguments: [
        "5;a", "5;a=b", "5;a=b;c=\"d e\"", "5 ; a = b", "5\t;\ta\t=\t\"q\\\"x\"", "5;a=\"\"",
        "5;a=\"\u{80}\\\u{80}\\\t\"", "5;!#$%&'*+-.^_`|~=1", "5;a=\"x\" ;b", "5;a;b=c",
    ])
    func wellFormedChunkExtensionsAreDropped(extensions: String) {
        let outcome = Feeding.requests(Self.chunkedHead + extensions + "\r\nhello\r\n0\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello"])
    }

    @Test(arguments: [
        "5;", "5; ", "5 ;", "5;a ", "5;a=", "5;a= ", "5;=b", "5;;a", "5;a;", "5;a b", "5;a=b c", "5;a=@",
        "5;a=\"q", "5;a=\"x\"y", "5;a=\"\u{1}\"", "5;a=\"\\\"", "5;a=\"\\\u{1}\"", "5;\u{80}", "5;a=\u{80}",
        "5;a=\"x\" ", "5;a=\"\u{7F}\"", "5 ; a = b ",
    ])
    func malformedChunkExtensionsAreBadRequest(extensions: String) {
        let outcome = Feeding.requests(Self.chunkedHead + extensions + "\r\nhello\r\n0\r\n\r\n")
        #expect(outcome.error == .badChunk)
        #expect(outcome.status == 400)
        #expect(outcome.requests.isEmpty)
    }

    @Test func chunkExtensionsAreBounded() {
        let rest = "\r\nhello\r\n0\r\n\r\n"
        let long = Feeding.requests(Self.chunkedHead + "5;a=" + String(repeating: "b", count: 17_000) + rest)
        #expect(long.error == .badChunk)
        let quoted = Feeding.requests(Self.chunkedHead + "5;a=\"" + String(repeating: "b", count: 17_000))
        #expect(quoted.error == .badChunk, "an open quoted-string cannot hold the buffer")
        let fits = Feeding.requests(Self.chunkedHead + "5;a=" + String(repeating: "b", count: 8_000) + rest)
        #expect(fits.error == nil)
    }

    @Test func trailersAreCheckedLikeHeaders() {
        let outcome = Feeding.requests(
            "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Name: x\r\n\r\n")
        #expect(outcome.status == 400)
    }

    // MARK: Verdicts stop the stream

    @Test func nothingAfterAVerdictIsParsed() {
        let outcome = Feeding.requests("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\nHost: a\r\n\r\n")
        #expect(outcome.requests.map(\.target) == ["/"])
        #expect(outcome.error == .missingHost)
    }
}
