// Live fault and load tests: a misbehaving origin (hanging with the pool full, closing
// mid-body; a dripping origin is in FramingOriginTests), clients that leave mid-answer, thousands
// of idle connections, a registry flood, and kill -9 under registration load. Each checks what clients get and how fast, then that
// the proxy is healthy and its fds and resident memory are back near where they started.

import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized)
struct FaultReliabilityTests {
    static let fast = #"{"query":"query Fast { launch(id: \"1\") { id } }"}"#
    static let slow = #"{"query":"query Slow { launch(id: \"2\") { id } }"}"#

    // MARK: - A misbehaving origin

    /// The origin accepts and never answers; with two connections per loop, ten requests queue
    /// behind them. Every one is answered 504 within a bound, and hits are served meanwhile.
    @Test func hangingOriginWithThePoolFullAnswersEveryRequest() throws {
        let origin = try RawOrigin(mode: "hang")
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: Self.yaml(timeout: "1s", extraOrigin: "  max_connections: 2\n"), threads: 1)
        let baseline = try Baseline(proxy)
        let hits = try HitProbe(proxy)
        let clock = ContinuousClock()
        let start = clock.now
        let statuses = Collected<Int>()
        DispatchQueue.concurrentPerform(iterations: 10) { _ in
            statuses.append((try? proxy.client.post("/graphql", json: Self.slow).status) ?? -1)
        }
        let elapsed = clock.now - start
        let hitLatencies = hits.stop()
        #expect(statuses.all.sorted() == Array(repeating: 504, count: 10))
        #expect(elapsed < .seconds(8), "all answered after \(elapsed)")
        #expect(!hitLatencies.isEmpty && hitLatencies.allSatisfy { $0 < .milliseconds(500) })
        origin.stop()
        try baseline.expectRecovered()
    }

    /// The origin promises 1000 bytes, sends 10 and closes: 502 at once, nothing cached.
    @Test func originClosingMidBodyIsA502AndNothingIsStored() throws {
        let origin = try RawOrigin(mode: "midbody")
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.yaml(timeout: "5s"), threads: 1)
        let baseline = try Baseline(proxy)
        for _ in 0..<3 {
            let clock = ContinuousClock()
            var answer: HTTPClientResponse?
            let elapsed = try clock.measure { answer = try proxy.client.post("/graphql", json: Self.slow) }
            #expect(answer?.status == 502)
            #expect(answer?.header("X-Cache") != "HIT")
            #expect(elapsed < .seconds(2))
        }
        try baseline.expectRecovered()
    }

    // MARK: - Clients that leave

    /// Clients that send a request and close before the answer, on a miss (the origin takes
    /// 300 ms) and on a hit: the proxy keeps serving and releases every connection.
    @Test func clientsDisconnectingMidMissAndMidHitLeaveNothingBehind() throws {
        let origin = try DemoOriginProcess()
        // A small origin pool, so that the connections it keeps alive stay within the fd slack.
        let proxy = try cachingProxy(origin: origin, extra: "origin:\n  max_connections: 2\n")
        let baseline = try Baseline(proxy)
        let detail = #"{"query":"query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }","variables":{"id":"%@"}}"#
        try origin.setFaults(#"{"delayMs": 300}"#)
        for number in 0..<40 {
            try Self.sendAndLeave(proxy.port, post: String(format: detail, "leave-\(number)"))
        }
        try origin.setFaults(#"{"reset": true}"#)
        let hit = String(format: detail, "hit")
        #expect(try proxy.client.post("/graphql", json: hit).status == 200)
        for _ in 0..<200 { try Self.sendAndLeave(proxy.port, post: hit) }
        #expect(try proxy.client.post("/graphql", json: hit).header("X-Cache") == "HIT")
        try baseline.expectRecovered()
    }

    // MARK: - Load

    /// 5,000 idle connections held open while other clients are served promptly; once they close,
    /// the proxy's descriptors return to where they were.
    @Test func fiveThousandIdleConnectionsWhileOthersAreServed() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 12_000 {
            limit.rlim_cur = min(limit.rlim_max, 12_000)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        try #require(limit.rlim_cur >= 11_000, "RLIMIT_NOFILE \(limit.rlim_cur) is too low for this test")
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let baseline = try Baseline(proxy)
        var afterRound: [Int] = []
        for round in 0..<2 {
            let idle = try IdleConnections(port: proxy.port, count: 5_000)
            let clock = ContinuousClock()
            var worst = Duration.zero
            for number in 0..<50 {
                let body = #"{"query":"query GetLaunchDetail($id: ID!) { launch(id: $id) { id } }","variables":{"id":"\#(number % 5)"}}"#
                var status = 0
                let elapsed = try clock.measure { status = try proxy.client.post("/graphql", json: body).status }
                #expect(status == 200)
                worst = max(worst, elapsed)
            }
            let open = Baseline.openDescriptors(baseline.pid)
            #expect(open >= 5_000)
            #expect(worst < .seconds(1))
            idle.close()
            try baseline.expectDescriptorsRecovered(timeout: .seconds(10))
            afterRound.append(Baseline.residentKiB(baseline.pid))
            print("5,000 idle connections, round \(round + 1): proxy fds \(open), worst request \(worst), RSS after \(afterRound.last!) KiB (start \(baseline.residentKiB) KiB)")
        }
        // The first round leaves the allocator's high-water mark behind; a second round must not add to it.
        #expect(afterRound[1] - afterRound[0] < 4_000, "RSS after each round: \(afterRound) KiB")
    }

    /// Two floods of 600 registrations of 8 KB documents against `max_entries: 100`: memory is
    /// bounded by the registry's bound, not by what clients send, so the second flood adds nothing.
    @Test func registryFloodStaysWithinItsBound() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \"\"\n  max_entries: 100\n", threads: 2)
        let baseline = try Baseline(proxy)
        let padding = String(repeating: "x", count: 8_000)
        var afterFlood: [Int] = []
        for flood in 0..<2 {
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for number in stride(from: worker, to: 600, by: 4) {
                    let document = "query Flood\(flood)x\(number) { launch(id: \"1\") { id } } # \(padding)"
                    _ = try? proxy.client.post("/graphql", json: APQ.registeringPOST(document, operationName: nil))
                }
            }
            let apq = try #require(try proxy.stats()["apq"] as? [String: Any])
            #expect(apq["entries"] as? Int == 100)
            afterFlood.append(Baseline.residentKiB(baseline.pid))
        }
        print("registry flood: 2 × 600 × 8 KB registered; RSS \(baseline.residentKiB) KiB at the start, \(afterFlood) KiB after each flood")
        // Unbounded, each flood would add its 4.8 MB of documents plus their copies. What may still
        // grow in the second flood is the per-loop operation memos (about 2 MiB each, 2 loops), bounded too.
        // Loose (the allocator's arenas move by megabytes under load): the registry bound itself
        // is asserted exactly above, through `apq.entries`.
        #expect(afterFlood[1] - afterFlood[0] < 12_000)
        #expect(afterFlood[1] - baseline.residentKiB < 24_000)
        try baseline.expectDescriptorsRecovered()
        #expect(try proxy.admin.get("/healthz").status == 200)
    }

    /// kill -9 while clients register: after a restart on the same store every registration that
    /// was answered is served by hash, and the store loads (a torn last record at worst).
    @Test func killNineUnderRegistrationLoadThenRestart() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-kill-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = "persisted_queries:\n  store: \(folder.path)/registry.log\n"
        let proxy = try ProxyProcess(origin: origin.url, yaml: yaml, threads: 2)
        // Each answered registration with when it was answered: the store writes behind its
        // answers (docs/OPERATING.md, "Sizing"), so what kill -9 may lose is the last moment's.
        let acknowledged = Collected<(document: String, at: ContinuousClock.Instant)>()
        let stop = Collected<Bool>()
        let group = DispatchGroup()
        for worker in 0..<4 {
            DispatchQueue.global().async(group: group) {
                var number = 0
                while stop.all.isEmpty {
                    let document = "query Kill\(worker)x\(number) { launch(id: \"1\") { id } }"
                    number += 1
                    if let answer = try? proxy.client.post("/graphql", json: APQ.registeringPOST(document, operationName: nil)),
                        answer.status == 200
                    {
                        acknowledged.append((document, ContinuousClock.now))
                    }
                }
            }
        }
        // Killed mid-load, once a hundred registrations have been answered and the first of them
        // more than the write-behind's allowance ago.
        let allowance = Duration.seconds(1)
        #expect(eventually(within: .seconds(30)) {
            let all = acknowledged.all
            return all.count >= 100 && ContinuousClock.now - all[0].at > allowance + .milliseconds(500)
        })
        let killedAt = ContinuousClock.now
        proxy.process.signal(SIGKILL)
        _ = proxy.process.waitForExit(timeout: .seconds(5))
        stop.append(true)
        group.wait()
        let answered = acknowledged.all
        // Those answered a second or more before the kill must have reached the disk.
        let documents = answered.filter { killedAt - $0.at >= allowance }.map(\.document)
        #expect(documents.count >= 20)

        let restarted = try ProxyProcess(origin: origin.url, yaml: yaml, threads: 2)
        var missing = 0
        for document in documents {
            let answer = try restarted.client.get(APQ.hashedGET(document, operationName: nil))
            if firstError(answer).code == "PERSISTED_QUERY_NOT_FOUND" { missing += 1 }
        }
        print("kill -9: \(answered.count) registrations answered, \(documents.count) of them a second before the kill, \(missing) of those missing after restart")
        #expect(missing == 0)
        #expect(try restarted.admin.get("/healthz").status == 200)
    }

    // MARK: - Helpers

    static func yaml(timeout: String, extraOrigin: String = "") -> String {
        """
        origin:
          timeout: \(timeout)
        \(extraOrigin)persisted_queries:
          store: ""
        cache:
          rules:
            - operation: Fast
              ttl: 60s
        """
    }

    /// Opens a connection, sends `post` to /graphql and closes at once, without reading.
    static func sendAndLeave(_ port: Int, post body: String) throws {
        let connection = try KeepAliveClient(port: port, timeout: .seconds(5))
        let request = "POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        try connection.write(Array(request.utf8))
        connection.close()
    }
}

/// The proxy's health, fds and resident memory at the start of a test, to compare with at its end.
struct Baseline {
    let proxy: ProxyProcess
    let pid: Int32
    let descriptors: Int
    let residentKiB: Int

    init(_ proxy: ProxyProcess) throws {
        self.proxy = proxy
        pid = try #require(proxy.process.processIdentifier)
        #expect(try proxy.admin.get("/healthz").status == 200)
        descriptors = Self.openDescriptors(pid)
        residentKiB = Self.residentKiB(pid)
    }

    /// `/healthz` answers 200 and, within `timeout`, the fds are back within a few of the start and
    /// resident memory within `residentSlackKiB` of it.
    func expectRecovered(timeout: Duration = .seconds(5), residentSlackKiB: Int = 8_000) throws {
        try expectDescriptorsRecovered(timeout: timeout)
        let resident = Self.residentKiB(pid)
        #expect(resident - residentKiB < residentSlackKiB, "RSS: \(residentKiB) KiB at the start, \(resident) KiB at the end")
    }

    /// `/healthz` answers 200 and, within `timeout`, the fds are back within a few of the start.
    func expectDescriptorsRecovered(timeout: Duration = .seconds(5)) throws {
        #expect(try proxy.admin.get("/healthz").status == 200)
        let deadline = ContinuousClock.now + timeout
        var now = Self.openDescriptors(pid)
        // The origin pool may keep a few more connections alive than at the start.
        while now > descriptors + 4, ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            now = Self.openDescriptors(pid)
        }
        #expect(now <= descriptors + 4, "fds: \(descriptors) at the start, \(now) at the end")
    }

    static func openDescriptors(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    static func residentKiB(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
}

/// Sends the cached `Fast` query in a loop on a thread of its own and records each latency.
final class HitProbe: @unchecked Sendable {
    private let latencies = Collected<Duration>()
    private let stopped = Collected<Bool>()
    private let done = DispatchSemaphore(value: 0)

    init(_ proxy: ProxyProcess) throws {
        let first = try proxy.client.post("/graphql", json: FaultReliabilityTests.fast)
        #expect(first.status == 200, "the Fast query: \(first)")
        Thread { [latencies, stopped, done] in
            let clock = ContinuousClock()
            while stopped.all.isEmpty {
                var status = 0
                let elapsed = clock.measure {
                    status = (try? proxy.client.post("/graphql", json: FaultReliabilityTests.fast).status) ?? -1
                }
                latencies.append(status == 200 ? elapsed : .seconds(3600))
                Thread.sleep(forTimeInterval: 0.05)
            }
            done.signal()
        }.start()
    }

    func stop() -> [Duration] {
        stopped.append(true)
        done.wait()
        return latencies.all
    }
}

/// Many plain TCP connections to a port that send nothing.
final class IdleConnections {
    private var descriptors: [Int32] = []

    init(port: Int, count: Int) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw POSIXError(.EMFILE) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(fd)
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            descriptors.append(fd)
        }
    }

    func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors.removeAll()
    }

    deinit { close() }
}

/// A raw TCP origin in Python that misbehaves in one way (`drip`, `hang`, `midbody`) for every
/// request except those naming the `Fast` operation, which it answers at once with max-age=60.
final class RawOrigin {
    let process: ManagedProcess
    let port: Int
    var url: String { "http://127.0.0.1:\(port)/graphql" }

    init(mode: String) throws {
        process = ManagedProcess(executable: "/usr/bin/python3", arguments: ["-u", "-c", Self.script, mode])
        try process.start()
        let line = try process.waitForLine(containing: "listening on", timeout: .seconds(10))
        port = try #require(ManagedProcess.listeningPort(in: line))
    }

    func stop() { _ = process.terminate() }

    deinit { stop() }

    static let script = #"""
        import socket, sys, threading, time
        mode = sys.argv[1]
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen(512)
        print("listening on http://127.0.0.1:%d/graphql" % server.getsockname()[1], flush=True)
        body = b'{"data":{"launch":{"id":"1","site":"a site far away from here"}}}'
        def head(length, extra=b""):
            return b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n" % (length, extra)
        def serve(connection):
            try:
                data = b""
                while True:
                    while b"\r\n\r\n" not in data:
                        chunk = connection.recv(65536)
                        if not chunk:
                            return
                        data += chunk
                    header, _, rest = data.partition(b"\r\n\r\n")
                    length = 0
                    for line in header.split(b"\r\n")[1:]:
                        name, _, value = line.partition(b":")
                        if name.strip().lower() == b"content-length":
                            length = int(value.strip())
                    while len(rest) < length:
                        rest += connection.recv(65536)
                    request, data = rest[:length], rest[length:]
                    if b"Fast" in request:
                        connection.sendall(head(len(body), b"Cache-Control: public, max-age=60\r\n") + body)
                    elif mode == "drip":
                        connection.sendall(head(len(body)))
                        for byte in body:
                            connection.sendall(bytes([byte]))
                            time.sleep(0.3)
                    elif mode == "hang":
                        time.sleep(3600)
                    elif mode == "midbody":
                        connection.sendall(head(1000) + body[:10])
                        connection.close()
                        return
            except OSError:
                pass
        while True:
            connection, _ = server.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}
