// Listening sockets that survive a restart or an upgrade, against the real binary (docs/OPERATING.md,
// "Restarts and upgrades"): socket activation as systemd does it (sd_listen_fds(3)), restarts
// under a holder of the sockets, `run --takeover` under continuous load, and takeovers refused.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct HandoverTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")
    static let holder = fixtures.appendingPathComponent("socket_holder.py").path

    /// A folder with a config.yaml holding `yaml`, removed when the value goes.
    final class Folder: @unchecked Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bw-handover-\(UUID().uuidString)")
        var config: String { url.appendingPathComponent("config.yaml").path }
        func path(_ name: String) -> String { url.appendingPathComponent(name).path }

        init(yaml: String) throws {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try yaml.write(toFile: config, atomically: true, encoding: .utf8)
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static let yaml = """
        persisted_queries:
          store: ""
        cache:
          rules:
            - operation: GetLaunchDetail
              ttl: 30s
        admin:
          handover_socket: handover.sock
        logging:
          access_log: off

        """

    private func runArguments(_ folder: Folder, origin: DemoOriginProcess, listen: String = "127.0.0.1:0") -> [String] {
        [
            "run", "--config", folder.config, "--origin", origin.url, "--listen", listen, "--admin-listen",
            "127.0.0.1:0", "--threads", "2", "--log-level", "notice",
        ]
    }

    private func startProxy(_ arguments: [String], environment: [String: String] = [:]) throws -> (ManagedProcess, Int, Int) {
        let process = ManagedProcess(executable: try BreakwaterBinary.path(), arguments: arguments, environment: environment)
        try process.start()
        let line = try process.waitForLine(matching: { $0.contains("breakwater: listening on") }, timeout: .seconds(20))
        let adminLine = try process.waitForLine(containing: "admin listening on", timeout: .seconds(5))
        return (
            process, try #require(ManagedProcess.listeningPort(in: line)),
            try #require(ManagedProcess.listeningPort(in: adminLine))
        )
    }

    private func expectClean(_ tally: ContinuousLoad.Tally, _ context: String) {
        #expect(tally.answered > 50, "\(context): the load ran")
        #expect(tally.refused == 0, "\(context): \(tally.failures.prefix(5))")
        #expect(tally.failed == 0, "\(context): \(tally.failures.prefix(5))")
        print("\(context): answered \(tally.answered), refused \(tally.refused), failed \(tally.failed), retried \(tally.retried)")
    }

    // MARK: - systemd

    /// systemd-socket-activate holds the socket and starts the binary on the first connection, as
    /// a socket unit does: the connection that woke it is answered, and the admin listener, not
    /// passed, is bound from the configuration.
    @Test func socketActivatedProcessServesTheSocketItWasGiven() throws {
        let activate = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activate) else { return }
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: "persisted_queries:\n  store: \"\"\n")
        let port = FreePort.allocate()
        let process = ManagedProcess(
            executable: activate,
            arguments: ["-l", "127.0.0.1:\(port)", "--fdname=graphql", try BreakwaterBinary.path()]
                + runArguments(folder, origin: origin, listen: "127.0.0.1:\(port)"))
        try process.start()
        _ = try process.waitForLine(containing: "Listening on 127.0.0.1:\(port)", timeout: .seconds(10))
        let response = try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body)
        #expect(response.status == 200)
        _ = try process.waitForLine(containing: "serving 1 listening sockets from systemd", timeout: .seconds(10))
        #expect(!process.output.contains { $0.contains("not the configured") }, "the socket's address is the configured one")
        let adminLine = try process.waitForLine(containing: "admin listening on", timeout: .seconds(5))
        let adminPort = try #require(ManagedProcess.listeningPort(in: adminLine))
        #expect(try eventually(within: .seconds(5)) { try HTTPClient(port: adminPort).get("/readyz").status == 200 })
        process.signal(SIGTERM)
        #expect(process.waitForExit(timeout: .seconds(10)) == 0)
    }

    /// `systemctl restart` with the socket units: the sockets stay open while one process stops and
    /// the next starts, so a client sending all along sees no refused connection and no failure.
    @Test func restartUnderASocketHolderRefusesNothing() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: "persisted_queries:\n  store: \"\"\nlogging:\n  access_log: off\n")
        let (graphqlPort, adminPort) = (FreePort.allocate(), FreePort.allocate())
        let holder = ManagedProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", Self.holder, String(graphqlPort), String(adminPort), "--", try BreakwaterBinary.path()]
                + runArguments(folder, origin: origin, listen: "127.0.0.1:\(graphqlPort)"))
        try holder.start()
        defer {
            holder.signal(SIGTERM)
            _ = holder.waitForExit(timeout: .seconds(15))
        }
        _ = try holder.waitForLine(containing: "breakwater: listening on http://127.0.0.1:\(graphqlPort)", timeout: .seconds(20))
        _ = try holder.waitForLine(containing: "serving 2 listening sockets from systemd", timeout: .seconds(10))
        #expect(
            try eventually(within: .seconds(5)) { try HTTPClient(port: adminPort).get("/readyz").status == 200 },
            "the admin socket was passed too")
        let load = ContinuousLoad(port: graphqlPort)
        Thread.sleep(forTimeInterval: 1)
        for restart in 1...2 {
            holder.signal(SIGHUP)
            #expect(
                try eventually(within: .seconds(20)) {
                    holder.output.filter { $0.contains("serving 2 listening sockets from systemd") }.count == restart + 1
                })
            Thread.sleep(forTimeInterval: 1)
        }
        let tally = load.stop()
        #expect(holder.output.filter { $0.contains("holder: child") && $0.contains("exited 0") }.count == 2)
        expectClean(tally, "restarts under a socket holder")
    }

    // MARK: - Takeover

    /// `run --takeover` under continuous load: the old process hands over every listening socket,
    /// stops accepting once the new one is ready, drains and exits 0; no connection is refused and
    /// every answer is right. The new one then offers the handover socket for the next takeover.
    @Test func takeoverUnderLoadRefusesNothingAndCanBeRepeated() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: Self.yaml)
        let (old, port, adminPort) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = old.terminate() }
        let load = ContinuousLoad(port: port)
        Thread.sleep(forTimeInterval: 1)
        let socket = folder.path("handover.sock")
        let (new, newPort, newAdminPort) = try startProxy(runArguments(folder, origin: origin) + ["--takeover", socket])
        defer { _ = new.terminate() }
        #expect(newPort == port)
        #expect(newAdminPort == adminPort)
        #expect(old.waitForExit(timeout: .seconds(15)) == 0, "the old process drained and exited")
        #expect(old.output.contains { $0.contains("takeover: handing over 4 listening sockets to pid \(new.processIdentifier ?? 0)") })
        _ = try new.waitForLine(containing: "takeover: serving on inherited sockets from pid", timeout: .seconds(10))
        #expect(try eventually(within: .seconds(5)) { try HTTPClient(port: adminPort).get("/readyz").status == 200 })

        // A further takeover through the socket the new process made.
        #expect(try eventually(within: .seconds(5)) { FileManager.default.fileExists(atPath: socket) })
        let (third, _, _) = try startProxy(runArguments(folder, origin: origin) + ["--takeover", socket])
        defer { _ = third.terminate() }
        #expect(new.waitForExit(timeout: .seconds(15)) == 0)
        Thread.sleep(forTimeInterval: 1)
        expectClean(load.stop(), "two takeovers under load")
        #expect(try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body).status == 200)
        third.signal(SIGTERM)
        #expect(third.waitForExit(timeout: .seconds(10)) == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "a stop removes the handover socket it made")
    }

    /// TLS and HTTP/2 apply to received sockets as configured: after a takeover the same port
    /// answers over TLS with h2 chosen by ALPN.
    @Test func takenOverSocketsServeTLSAndHTTP2AsConfigured() throws {
        let certificate = try TestCertificate(name: "localhost")
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: certificate.terminatingYAML + "\nadmin:\n  handover_socket: handover.sock\n")
        let (old, port, _) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = old.terminate() }
        let (new, _, _) = try startProxy(runArguments(folder, origin: origin) + ["--takeover", folder.path("handover.sock")])
        defer { _ = new.terminate() }
        #expect(old.waitForExit(timeout: .seconds(15)) == 0)
        let curl = try runTool(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code} %{http_version}", "--http2", "--cacert",
                certificate.certificate, "-H", "Content-Type: application/json", "--data", ContinuousLoad.body,
                "https://localhost:\(port)/graphql",
            ])
        #expect(curl.output == "200 2", "\(curl.output)")
    }

    /// The socket file is made with mode 0600, and a second process started on the same
    /// configuration stops at once: a live process owns the path.
    @Test func handoverSocketIsPrivateAndALiveOneStopsASecondStart() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: Self.yaml)
        let (old, port, _) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = old.terminate() }
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path("handover.sock"))
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let second = try runBreakwater(runArguments(folder, origin: origin))
        #expect(second.status == 1)
        #expect(second.output.contains("a running process listens there"), "\(second.output)")
        #expect(try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body).status == 200)
    }

    /// A socket file left by a process that is gone is replaced at start.
    @Test func staleHandoverSocketIsReplaced() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: Self.yaml)
        try makeDeadSocket(at: folder.path("handover.sock"))
        let (process, port, _) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = process.terminate() }
        #expect(try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body).status == 200)
    }

    // MARK: - Refused takeovers

    /// Each way a takeover is refused: the new process exits 1 with one line saying why, and the
    /// old one serves on as before (its handover socket still works afterwards).
    @Test func refusedTakeoversLeaveTheOldProcessServing() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: Self.yaml)
        let (old, port, _) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = old.terminate() }
        let plain = folder.path("plain-file")
        try "not a socket".write(toFile: plain, atomically: true, encoding: .utf8)
        let dead = folder.path("dead.sock")
        try makeDeadSocket(at: dead)
        let cases: [(path: String, says: String)] = [
            (plain, "is not a socket"),
            (dead, "nothing listens on"),
            (folder.path("missing.sock"), "no handover socket at"),
        ]
        for (path, says) in cases {
            let attempt = try runBreakwater(runArguments(folder, origin: origin) + ["--takeover", path])
            #expect(attempt.status == 1, "\(path)")
            let refusal = attempt.output.split(separator: "\n").filter { $0.contains("takeover refused:") }
            #expect(refusal.count == 1 && refusal[0].contains(says), "\(attempt.output)")
            #expect(try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body).status == 200)
        }
        // A new process that speaks no version the old one speaks is refused by it.
        let answer = try converse(at: folder.path("handover.sock"), send: "breakwater-handover hello versions=7-9 pid=1\n")
        #expect(answer == "breakwater-handover refused reason=no common protocol version (this process speaks 1, the other 7-9)\n")
        // Logged after the answer went: waited for, not read at once.
        _ = try old.waitForLine(containing: "refused: no common protocol version", timeout: .seconds(10))
        // Something that is not Breakwater at all is refused too.
        let stranger = try converse(at: folder.path("handover.sock"), send: "GET / HTTP/1.1\r\n\r\n")
        #expect(stranger.hasPrefix("breakwater-handover refused reason="))
        #expect(old.isRunning)
        #expect(try HTTPClient(port: port).post("/graphql", json: ContinuousLoad.body).status == 200)
        // And after all that, a real takeover still works.
        let (new, _, _) = try startProxy(runArguments(folder, origin: origin) + ["--takeover", folder.path("handover.sock")])
        defer { _ = new.terminate() }
        #expect(old.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// A new process that got the sockets and failed before it was ready (here: a schema file
    /// that does not parse, found when the proxy is built): the old one never stopped accepting,
    /// so the clients see nothing, and a later takeover still works.
    @Test func newProcessFailingBeforeReadyLeavesTheOldServing() throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: Self.yaml)
        let (old, port, _) = try startProxy(runArguments(folder, origin: origin))
        defer { _ = old.terminate() }
        let load = ContinuousLoad(port: port)
        Thread.sleep(forTimeInterval: 0.5)
        let broken = folder.path("broken.yaml")
        try "persisted_queries:\n  store: \"\"\norigin:\n  schema: broken.graphql\n".write(
            toFile: broken, atomically: true, encoding: .utf8)
        try "type Query { oops(: }\n".write(toFile: folder.path("broken.graphql"), atomically: true, encoding: .utf8)
        var arguments = runArguments(folder, origin: origin) + ["--takeover", folder.path("handover.sock")]
        arguments[2] = broken
        let attempt = try runBreakwater(arguments)
        #expect(attempt.status == 1)
        #expect(attempt.output.contains("SDL does not parse"), "\(attempt.output)")
        #expect(try eventually(within: .seconds(5)) { old.output.contains { $0.contains("failed before it was ready") } })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(old.isRunning)
        expectClean(load.stop(), "a takeover that failed before it was ready")
        let (new, _, _) = try startProxy(runArguments(folder, origin: origin) + ["--takeover", folder.path("handover.sock")])
        defer { _ = new.terminate() }
        #expect(old.waitForExit(timeout: .seconds(15)) == 0)
    }

    /// An old process that answers in a protocol version this one does not speak, or that is not
    /// Breakwater: the new process refuses, exits 1 and says why in one line.
    @Test(arguments: [
        ("breakwater-handover sockets version=9 pid=77 graphql=1 admin=0\n", "answered in protocol version 9"),
        ("breakwater-handover refused reason=no common protocol version (this process speaks 9, the other 1)\n",
         "refused by pid"),
        ("SSH-2.0-OpenSSH_9.2\r\n", "is not a Breakwater handover socket"),
    ])
    func newProcessRefusesAnOldOneItCannotAgreeWith(answer: String, says: String) throws {
        let origin = try DemoOriginProcess()
        let folder = try Folder(yaml: "persisted_queries:\n  store: \"\"\n")
        let path = folder.path("fake.sock")
        let fake = ManagedProcess(
            executable: "/usr/bin/env",
            arguments: [
                "python3", "-c",
                """
                import socket, sys
                s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(1)
                print("fake listening", flush=True)
                c, _ = s.accept(); c.recv(512); c.sendall(sys.argv[2].encode()); c.recv(512)
                """,
                path, answer,
            ])
        try fake.start()
        defer { _ = fake.terminate() }
        _ = try fake.waitForLine(containing: "fake listening", timeout: .seconds(10))
        let attempt = try runBreakwater(runArguments(folder, origin: origin) + ["--takeover", path])
        #expect(attempt.status == 1)
        let refusal = attempt.output.split(separator: "\n").filter { $0.contains("takeover refused:") }
        #expect(refusal.count == 1 && refusal[0].contains(says), "\(attempt.output)")
    }

    // MARK: - Helpers

    /// A Unix socket file nobody listens on: bound by a process that then exited.
    private func makeDeadSocket(at path: String) throws {
        let made = try runTool(
            "/usr/bin/env", ["python3", "-c", "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])", path])
        #expect(made.status == 0, "\(made.output)")
    }

    /// Sends `text` to the Unix socket at `path` and returns the first line of the answer.
    private func converse(at path: String, send text: String) throws -> String {
        let result = try runTool(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import socket, sys
                s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
                s.sendall(sys.argv[2].encode()); data = b""
                while not data.endswith(b"\\n"):
                    chunk = s.recv(512)
                    if not chunk: break
                    data += chunk
                sys.stdout.write(data.decode())
                """,
                path, text,
            ])
        return result.output
    }
}
