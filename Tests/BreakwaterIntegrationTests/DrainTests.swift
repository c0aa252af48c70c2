// SIGTERM under load against the real binary (docs/OPERATING.md, "Stopping: the drain"): the drain ends
// when the work in flight ends. Over HTTP/1.1 every answer begun is finished, the last answer
// on each connection says `Connection: close`, an idle connection closes cleanly (a request
// that crossed its close is sent again once, RFC 9112 9.3.1); over HTTP/2 the GOAWAY comes in
// two steps and every stream taken is answered. Then the process exits 0 at once, its stop line
// last.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct DrainTests {
    static let drainServer = "server:\n  drain_timeout: 10s\n"

    /// Milliseconds since the epoch of a log line's leading time (`2026-11-28T21:16:50.548Z ...`).
    static func wallMilliseconds(_ line: String) -> Int64? {
        guard let stamp = line.split(separator: " ").first else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: String(stamp)).map { Int64($0.timeIntervalSince1970 * 1000) }
    }

    @Test func http11KeepAliveAndSlowClientsAreAllAnsweredAndTheProcessExitsWhenTheLastAnswerIsOut() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \"\"\n" + Self.drainServer, logLevel: "notice")
        let record = DrainRecord()
        let quick = (0..<6).map { LoopingClient(port: proxy.port, originMilliseconds: 2 + $0, record: record) }
        let slow = (0..<4).map { LoopingClient(port: proxy.port, originMilliseconds: 500 + 333 * $0, record: record) }
        let clients = quick + slow
        let finished = DispatchGroup()
        for client in clients {
            finished.enter()
            Thread {
                client.run()
                finished.leave()
            }.start()
        }
        // Under way: every client answered at least twice (a slow one is then inside a request).
        try #require(
            eventually(within: .seconds(20)) { clients.allSatisfy { record.answers(of: $0.id).count >= 2 } },
            "the clients were not all answered: \(record.summary)")
        let signalled = ContinuousClock.now
        let signalledWall = Date()
        record.signalled(at: signalled)
        proxy.process.signal(SIGTERM)
        let status = proxy.process.waitForExit(timeout: .seconds(15))
        let exited = ContinuousClock.now
        #expect(finished.wait(timeout: .now() + 15) == .success, "the clients stopped: \(record.summary)")
        print("HTTP/1.1 drain: \(record.summary), exit after \(exited - signalled)")

        #expect(status == 0)
        #expect(record.aborts.isEmpty, "aborted requests: \(record.aborts)")
        // When the process began to drain, by its own log line's time (a loaded machine can take a
        // while to deliver the signal, and answers before that rightly keep the connection).
        let drainLine = try #require(proxy.process.output.first { $0.contains("draining: stopped accepting") })
        let drainBegan = signalled + .milliseconds(try #require(Self.wallMilliseconds(drainLine)) - Int64(signalledWall.timeIntervalSince1970 * 1000))
        for client in clients {
            let afterSignal = record.answers(of: client.id).filter { $0.receivedAt > signalled }
            // No keep-alive answer once the drain began (a moment allowed for one already on its
            // way); the connection ends with `Connection: close` on its last answer, or cleanly.
            let keptAlive = afterSignal.filter { !$0.closes && $0.receivedAt > drainBegan + .milliseconds(250) }
            #expect(keptAlive.isEmpty, "client \(client.id): \(afterSignal)")
        }
        // A slow request in flight at the drain says `Connection: close`; a slow client whose
        // answer came just before the drain found its idle connection closed and sent again.
        var closedInFlight = 0
        for client in slow {
            let last = try #require(record.answers(of: client.id).last)
            if last.receivedAt > signalled && last.closes { closedInFlight += 1 }
            #expect(
                (last.receivedAt > signalled && last.closes) || record.sentAgain(by: client.id),
                "client \(client.id): \(record.answers(of: client.id).suffix(3))")
        }
        #expect(closedInFlight > 0, "the slow requests in flight said Connection: close")
        let lastAnswer = try #require(record.lastAnswerTime)
        #expect(exited - lastAnswer < .seconds(2), "exit \(exited - lastAnswer) after the last answer")
        #expect(exited - signalled < .seconds(5), "exit \(exited - signalled) after SIGTERM, drain_timeout 10s")
        let lines = proxy.process.output.filter { !$0.isEmpty }
        #expect(lines.last?.contains("stopped") == true, "last line: \(lines.suffix(3))")
    }

    @Test(.enabled(if: HTTP2FrameClient.isAvailable, "needs Python's h2: run `make python-deps`"))
    func http2StreamsInFlightAtTheGoawayAreAllAnsweredAndNoneIsReset() throws {
        let stack = try HTTP2Stack(server: "  drain_timeout: 10s", rest: "", logLevel: "notice")
        let started = ContinuousClock.now
        let observed = try stack.frames.run(
            "drain-load", ["--signal-pid", String(stack.pid)], options: ["--path", "/graphql", "--timeout", "15"],
            timeout: .seconds(40))
        let clientDone = ContinuousClock.now
        let status = stack.proxy.process.waitForExit(timeout: .seconds(15))
        let exited = ContinuousClock.now
        print("HTTP/2 drain: \(observed), exit \(exited - started) after the client started")
        #expect(exited - clientDone < .seconds(2), "exit \(exited - clientDone) after the connection closed")

        #expect(status == 0)
        let goaways = observed.json["goaways"] as? [[String: Any]] ?? []
        let lastStreamIDs = goaways.compactMap { $0["last_stream_id"] as? Int }
        #expect(lastStreamIDs.first == Int(Int32.max), "the first GOAWAY is the shutdown notice: \(goaways)")
        #expect(lastStreamIDs.count == 2, "then one final GOAWAY: \(goaways)")
        #expect(goaways.allSatisfy { $0["error"] as? String == "NO_ERROR" })
        let outcomes = observed.json["outcomes"] as? [String: Int] ?? [:]
        let opened = try #require(observed.int("streams_opened"))
        #expect(outcomes["answered"] == opened, "every stream taken and answered: \(observed)")
        #expect(observed.resetCount == 0, "no stream reset: \(observed.resets)")
        #expect(lastStreamIDs.last == 2 * opened - 1, "the final GOAWAY names the last stream opened")
        #expect(observed.isClosed, "the server closed the connection once the streams were answered")
        let lines = stack.proxy.process.output.filter { !$0.isEmpty }
        #expect(lines.last?.contains("stopped") == true, "last line: \(lines.suffix(3))")
    }
}

/// One answer a looping client received.
struct DrainAnswer: CustomStringConvertible {
    let receivedAt: ContinuousClock.Instant
    /// The answer said `Connection: close`.
    let closes: Bool
    var description: String { closes ? "close" : "keep-alive" }
}

/// What every looping client saw, across threads.
final class DrainRecord: @unchecked Sendable {
    private let lock = NSLock()
    private var answers: [Int: [DrainAnswer]] = [:]
    private(set) var abortList: [String] = []
    private var retries = 0
    private var retriedClients: Set<Int> = []
    private var refusals = 0
    private var signalledAt: ContinuousClock.Instant?

    func signalled(at instant: ContinuousClock.Instant) { lock.withLock { signalledAt = instant } }

    func answered(_ client: Int, closes: Bool) {
        lock.withLock { answers[client, default: []].append(DrainAnswer(receivedAt: .now, closes: closes)) }
    }

    func aborted(_ client: Int, _ what: String) { lock.withLock { abortList.append("client \(client): \(what)") } }
    func retried(_ client: Int) {
        lock.withLock {
            retries += 1
            retriedClients.insert(client)
        }
    }

    /// The client sent a request again after the server closed its idle connection.
    func sentAgain(by client: Int) -> Bool { lock.withLock { retriedClients.contains(client) } }
    func refused() { lock.withLock { refusals += 1 } }

    func answers(of client: Int) -> [DrainAnswer] { lock.withLock { answers[client] ?? [] } }
    var aborts: [String] { lock.withLock { abortList } }
    var lastAnswerTime: ContinuousClock.Instant? { lock.withLock { answers.values.compactMap(\.last?.receivedAt).max() } }

    var summary: String {
        lock.withLock {
            let all = answers.values.flatMap { $0 }
            let after = signalledAt.map { at in all.filter { $0.receivedAt > at } } ?? []
            return "\(all.count) answers (\(after.count) after SIGTERM, \(after.filter(\.closes).count) with "
                + "Connection: close), \(retries) sent again after a clean close, \(refusals) refused reconnects, "
                + "\(abortList.count) aborted"
        }
    }
}

/// A keep-alive HTTP/1.1 client asking one query again and again until the server refuses a
/// new connection.
struct LoopingClient: Sendable {
    private static let nextID = LockedValue(0)

    let id: Int
    let port: Int
    let originMilliseconds: Int
    let record: DrainRecord

    init(port: Int, originMilliseconds: Int, record: DrainRecord) {
        var assigned = 0
        Self.nextID.update { value in
            value += 1
            assigned = value
        }
        id = assigned
        self.port = port
        self.originMilliseconds = originMilliseconds
        self.record = record
    }

    private var body: String { #"{"query":"{ slow(ms: \#(originMilliseconds)) }"}"# }

    func run() {
        let deadline = ContinuousClock.now + .seconds(60)
        var connection: KeepAliveClient?
        while ContinuousClock.now < deadline {
            if connection?.isOpen != true {
                connection = connect()
                guard connection != nil else { return }
            }
            switch exchange(on: connection!) {
            case .answered:
                continue
            case .closedBeforeAnswer:
                // The server closed the idle connection as the request went out: sent again
                // once, on a new connection (or refused, the listener being closed).
                record.retried(id)
                guard let fresh = connect() else { return }
                connection = fresh
                guard case .answered = exchange(on: fresh) else {
                    return record.aborted(id, "the request sent again was not answered")
                }
            case .aborted:
                return
            }
        }
        record.aborted(id, "still running after 60 s")
    }

    private enum Exchange {
        case answered
        case closedBeforeAnswer
        case aborted
    }

    private func connect() -> KeepAliveClient? {
        do {
            return try KeepAliveClient(port: port, timeout: .seconds(5))
        } catch HTTPClientError.connectFailed {
            record.refused()
        } catch {
            record.aborted(id, "connect: \(error)")
        }
        return nil
    }

    private func exchange(on connection: KeepAliveClient) -> Exchange {
        do {
            let response = try connection.post("/graphql", json: body)
            guard response.status == 200, response.text.contains(#""slow":"slow""#) else {
                record.aborted(id, "answered \(response.status): \(response.text.prefix(200))")
                return .aborted
            }
            record.answered(id, closes: response.header("Connection")?.lowercased() == "close")
            return .answered
        } catch HTTPClientError.closed(let during) where during.hasPrefix("before a response") {
            return .closedBeforeAnswer
        } catch {
            record.aborted(id, "\(error)")
            return .aborted
        }
    }
}
