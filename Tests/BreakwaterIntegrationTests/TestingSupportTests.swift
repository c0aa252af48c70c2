// Proves the testing library itself: the HTTP client against a scripted loopback server, and the process harness.
import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - HTTP client

@Suite("TestingSupport: HTTP client")
struct HTTPClientTests {
    @Test func contentLengthResponseIsReadAndRequestCarriesHostAndConnectionClose() throws {
        let server = try ScriptedServer { connection in
            guard let request = connection.readRequest() else { return }
            connection.write("HTTP/1.1 200 OK\r\nX-Test: a\r\nx-test: b\r\nContent-Length: \(request.head.utf8.count)\r\n\r\n")
            connection.write(request.head)
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).get("/graphql?query=%7Bx%7D", headers: [("Accept", "*/*")])

        #expect(response.status == 200)
        #expect(response.reason == "OK")
        #expect(response.header("X-TEST") == "a")
        #expect(response.headers(named: "x-test") == ["a", "b"])
        #expect(response.text.hasPrefix("GET /graphql?query=%7Bx%7D HTTP/1.1\r\n"))
        #expect(response.text.contains("\r\nHost: 127.0.0.1:\(server.port)\r\n"))
        #expect(response.text.contains("\r\nAccept: */*\r\n"))
        #expect(response.text.contains("\r\nConnection: close\r\n"))
        #expect(!response.text.contains("Content-Length"))
    }

    @Test func postSendsJSONBodyAndResponseParsesAsJSON() throws {
        let server = try ScriptedServer { connection in
            guard let request = connection.readRequest() else { return }
            let type = request.head.contains("\r\nContent-Type: application/json\r\n")
            let echoed = String(decoding: request.body, as: UTF8.self)
            let body = #"{"contentType":\#(type),"echo":\#(echoed)}"#
            connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).post("/graphql", json: #"{"query":"{ hello }"}"#)

        let object = try #require(response.jsonObject)
        #expect(object["contentType"] as? Bool == true)
        #expect((object["echo"] as? [String: Any])?["query"] as? String == "{ hello }")
    }

    @Test func chunkedBodyArrivingByteByByteIsDecoded() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.writeSlowly(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;name=value\r\nhello\r\n7\r\n, world\r\nA\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\n")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).get("/")

        #expect(response.text == "hello, world0123456789")
        #expect(response.header("Transfer-Encoding") == "chunked")
    }

    @Test func bodyWithoutLengthIsReadUntilClose() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nfirst part, ")
            usleep(20_000)
            connection.write("second part")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).get("/")

        #expect(response.version == "HTTP/1.0")
        #expect(response.text == "first part, second part")
    }

    @Test func headResponseHasNoBodyDespiteContentLength() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).send(method: "HEAD", target: "/", timeout: .seconds(2))

        #expect(response.status == 200)
        #expect(response.body.isEmpty)
    }

    @Test func interimContinueResponseIsSkipped() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).post("/", json: "{}")

        #expect(response.status == 201)
        #expect(response.text == "ok")
    }

    @Test func keepAliveConnectionCarriesSeveralRequestsUntilServerCloses() throws {
        let accepted = Counter()
        let server = try ScriptedServer { connection in
            accepted.increment()
            var served = 0
            while let request = connection.readRequest() {
                served += 1
                let last = request.head.contains("/last")
                let body = "request \(served)"
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n"
                        + (last ? "Connection: close\r\n" : "") + "\r\n" + body)
                if last { return }
            }
        }
        defer { server.stop() }
        let connection = try KeepAliveClient(port: server.port)
        defer { connection.close() }

        #expect(try connection.get("/one").text == "request 1")
        #expect(connection.isOpen)
        #expect(try connection.post("/two", json: "{}").text == "request 2")
        #expect(try connection.get("/last").text == "request 3")
        #expect(!connection.isOpen)
        #expect(throws: HTTPClientError.self) { try connection.get("/after") }
        #expect(accepted.value == 1)
    }

    @Test func silentServerTimesOut() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.waitForPeerClose()
        }
        defer { server.stop() }
        let started = ContinuousClock.now
        let error = #expect(throws: HTTPClientError.self) {
            try HTTPClient(port: server.port).send(method: "GET", target: "/", timeout: .milliseconds(300))
        }
        guard case .timedOut = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func rawBytesGetTheServersAnswer() throws {
        let received = Box<String>()
        let server = try ScriptedServer { connection in
            guard let request = connection.readRequest() else { return }
            received.value = request.head
            connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbad")
        }
        defer { server.stop() }
        let response = try #require(try HTTPClient(port: server.port).sendRaw(Array("BREW /pot HTCPCP/1.0\r\n\r\n".utf8)))

        #expect(response.status == 400)
        #expect(response.text == "bad")
        #expect(received.value == "BREW /pot HTCPCP/1.0\r\n\r\n")
    }

    @Test func rawBytesAnsweredByCloseGiveNil() throws {
        let server = try ScriptedServer { connection in
            _ = connection.readRequest()
        }
        defer { server.stop() }
        #expect(try HTTPClient(port: server.port).sendRaw(Array("GET / HTTP/1.1\r\n\r\n".utf8)) == nil)
    }

    @Test func rawBytesWithCloseWriteLetTheServerSeeEndOfFile() throws {
        let server = try ScriptedServer { connection in
            // An incomplete request: the server answers only once the client half-closes.
            guard connection.readRequest() == nil else { return }
            connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let response = try HTTPClient(port: server.port).sendRaw(
            Array("GET / HTTP/1.1\r\nHost: x".utf8), closeWrite: true, timeout: .seconds(5))
        #expect(response?.status == 400)
    }

    @Test func responseThatIsNotHTTPIsMalformed() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("SSH-2.0-OpenSSH\r\n\r\n")
        }
        defer { server.stop() }
        let error = #expect(throws: HTTPClientError.self) { try HTTPClient(port: server.port).get("/") }
        guard case .malformed = error else {
            Issue.record("expected malformed, got \(String(describing: error))")
            return
        }
    }

    @Test func responseCutShortIsReportedAsClosed() throws {
        let server = try ScriptedServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly a few bytes")
        }
        defer { server.stop() }
        let error = #expect(throws: HTTPClientError.self) { try HTTPClient(port: server.port).get("/") }
        guard case .closed = error else {
            Issue.record("expected closed, got \(String(describing: error))")
            return
        }
    }

    @Test func nothingListeningIsConnectFailed() throws {
        let port = FreePort.allocate()
        #expect(port > 0)
        let error = #expect(throws: HTTPClientError.self) { try HTTPClient(port: port).get("/") }
        guard case .connectFailed = error else {
            Issue.record("expected connectFailed, got \(String(describing: error))")
            return
        }
        #expect(error?.description.contains("127.0.0.1:\(port)") == true)
    }
}

// MARK: - URL encoding

@Suite("TestingSupport: URL encoding")
struct URLEncodingTests {
    @Test(arguments: [
        ("azAZ09-._~", "azAZ09-._~"),
        ("a b", "a%20b"),
        ("{ hello }", "%7B%20hello%20%7D"),
        ("&=+/?#%", "%26%3D%2B%2F%3F%23%25"),
        ("é", "%C3%A9"),
    ])
    func encodeKeepsOnlyUnreservedCharacters(input: String, expected: String) {
        #expect(URLEncoding.encode(input) == expected)
    }

    @Test func queryStringJoinsEncodedPairsInOrder() {
        let query = URLEncoding.queryString([("query", "{ a }"), ("variables", #"{"x":1}"#)])
        #expect(query == "query=%7B%20a%20%7D&variables=%7B%22x%22%3A1%7D")
    }
}

// MARK: - Processes

@Suite("TestingSupport: managed processes")
struct ManagedProcessTests {
    @Test(arguments: [
        ("info listening on http://127.0.0.1:43567/graphql", 43567),
        ("info admin listening on http://127.0.0.1:40001", 40001),
        ("proxy 127.0.0.1:1 then 127.0.0.1:8080.", 8080),
        ("listening on http://[::1]:8080", nil),
        ("listening on http://127.0.0.1:/x", nil),
        ("listening on http://127.0.0.1:99999", nil),
    ] as [(String, Int?)])
    func listeningPortIsTheNumberAfterTheLastLoopbackAddress(line: String, port: Int?) {
        #expect(ManagedProcess.listeningPort(in: line) == port)
    }

    @Test func waitForLineFindsTheListeningLineAndTerminateStopsTheProcess() throws {
        let process = ManagedProcess(
            executable: "/bin/sh",
            arguments: ["-c", "echo hello; echo listening on http://127.0.0.1:1234/x; sleep 30"])
        try process.start()
        #expect(process.isRunning)

        let line = try process.waitForLine(matching: { $0.contains("listening on") }, timeout: .seconds(10))
        #expect(ManagedProcess.listeningPort(in: line) == 1234)
        #expect(process.output.starts(with: ["hello", "listening on http://127.0.0.1:1234/x"]))

        let started = ContinuousClock.now
        let status = process.terminate()
        #expect(status == 128 + SIGTERM)
        #expect(!process.isRunning)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func stderrIsMergedAndEnvironmentIsPassed() throws {
        let process = ManagedProcess(
            executable: "sh", arguments: ["-c", #"echo "to stderr $BW_TESTING_VALUE" >&2; exit 3"#],
            environment: ["BW_TESTING_VALUE": "42"])
        try process.start()

        #expect(try process.waitForLine(containing: "to stderr", timeout: .seconds(10)) == "to stderr 42")
        #expect(process.waitForExit(timeout: .seconds(10)) == 3)
        #expect(process.exitStatus == 3)
        #expect(!process.isRunning)
    }

    @Test func lineThatNeverComesTimesOutWithTheOutput() throws {
        let process = ManagedProcess(executable: "/bin/sh", arguments: ["-c", "echo not it; sleep 30"])
        try process.start()
        defer { process.terminate() }

        let started = ContinuousClock.now
        let error = #expect(throws: ManagedProcessError.self) {
            try process.waitForLine(matching: { $0.contains("ready") }, timeout: .milliseconds(300))
        }
        guard case .timedOut(_, _, let output) = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(output == ["not it"])
        #expect(error?.description.contains("| not it") == true)
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test func processExitingWithoutTheLineFailsAtOnce() throws {
        let process = ManagedProcess(executable: "/bin/sh", arguments: ["-c", "echo bye; exit 7"])
        try process.start()

        let started = ContinuousClock.now
        let error = #expect(throws: ManagedProcessError.self) {
            try process.waitForLine(containing: "ready", timeout: .seconds(30))
        }
        guard case .exited(_, let status, _) = error else {
            Issue.record("expected exited, got \(String(describing: error))")
            return
        }
        #expect(status == 7)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func signalReachesTheProcess() throws {
        let process = ManagedProcess(
            executable: "/bin/sh", arguments: ["-c", "trap 'echo got HUP; exit 0' HUP; echo ready; while :; do sleep 0.05; done"])
        try process.start()
        defer { process.terminate() }
        _ = try process.waitForLine(containing: "ready", timeout: .seconds(10))

        process.signal(SIGHUP)
        _ = try process.waitForLine(containing: "got HUP", timeout: .seconds(10))
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
    }

    @Test func droppingTheProcessKillsIt() throws {
        var pid: Int32 = 0
        do {
            let process = ManagedProcess(executable: "/bin/sh", arguments: ["-c", "echo up; sleep 30"])
            try process.start()
            _ = try process.waitForLine(containing: "up", timeout: .seconds(10))
            pid = try #require(process.processIdentifier)
        }
        #expect(kill(pid, 0) == -1 && errno == ESRCH)
    }

    @Test func missingExecutableFailsToStart() {
        let process = ManagedProcess(executable: "/nonexistent/breakwater", arguments: [])
        #expect(throws: ManagedProcessError.self) { try process.start() }
        #expect(!process.isRunning)
        #expect(process.terminate() == nil)
    }

    @Test func breakwaterBinaryIsFoundOrTheErrorSaysHowToBuildIt() {
        do {
            let path = try BreakwaterBinary.path()
            #expect(path.hasSuffix("/breakwater"))
            #expect(FileManager.default.isExecutableFile(atPath: path))
        } catch {
            #expect("\(error)".contains("swift build"))
        }
    }
}

// MARK: - A scripted loopback server

/// A TCP server on 127.0.0.1 and an ephemeral port; each connection runs `handler` on its own thread.
///
/// Tests call `stop()` in a `defer`, which also keeps the server alive until the test ends.
private final class ScriptedServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var isStopped = false  // guarded by lock

    init(handler: @escaping @Sendable (ServerConnection) -> Void) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, listening, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread {
            while true {
                let fd = accept(descriptor, nil, nil)
                if fd < 0 {
                    if errno == EINTR || errno == ECONNABORTED { continue }
                    return
                }
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                Thread {
                    let connection = ServerConnection(descriptor: fd)
                    handler(connection)
                    connection.close()
                }.start()
            }
        }.start()
    }

    /// Stops accepting; connections already accepted finish their handlers.
    func stop() {
        lock.withLock {
            guard !isStopped else { return }
            isStopped = true
            // Wakes the accept loop on Linux, then releases the port.
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    deinit { stop() }
}

/// The server's side of one connection: blocking reads of whole requests, writes of canned bytes.
private final class ServerConnection {
    private let descriptor: Int32
    private var buffer: [UInt8] = []

    init(descriptor: Int32) {
        self.descriptor = descriptor
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// The next request's head (through the blank line) and its Content-Length body; nil at end of stream.
    func readRequest() -> (head: String, body: [UInt8])? {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while true {
            headEnd = buffer.indices.dropLast(3).first { buffer[$0..<$0 + 4].elementsEqual(separator) }
            if headEnd != nil || !receive() { break }
        }
        guard let end = headEnd.map({ $0 + 4 }) else { return nil }
        let head = String(decoding: buffer[..<end], as: UTF8.self)
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while buffer.count < end + length {
            if !receive() { return nil }
        }
        let body = Array(buffer[end..<end + length])
        buffer.removeFirst(end + length)
        return (head, body)
    }

    /// Blocks until the client closes its side (or ten seconds pass).
    func waitForPeerClose() {
        while receive() {}
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    /// Writes one byte per send, pausing between them, so the client sees every possible split.
    func writeSlowly(_ text: String) {
        for byte in text.utf8 {
            write(String(decoding: [byte], as: UTF8.self))
            usleep(200)
        }
    }

    func close() {
        _ = Glibc.close(descriptor)
    }

    private func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        buffer += chunk[..<count]
        return true
    }
}

/// A lock-guarded value written by a server thread and read by the test.
private final class Box<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
