// A restart and an upgrade under load cost clients and the origin nothing (docs/OPERATING.md,
// "Restarts and upgrades"): with the sockets held by `systemd-socket-activate`, and with
// `run --takeover` to a second process, a client that checks every answer sees no refused
// connection and no failed answer, and the cache snapshot keeps the hit ratio of the first
// second after the switch within 5 points of the one before.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct RestartTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures")

    /// Both operations the load asks for are cached for 5 minutes; the snapshot and the handover
    /// socket sit in the test's folder.
    static let yaml = """
        persisted_queries:
          store: ""
        cache:
          snapshot: cache.snapshot
          rules:
            - operation: GetLaunchDetail
              ttl: 5m
            - operation: GetLaunches
              ttl: 5m
        admin:
          handover_socket: handover.sock
        logging:
          access_log: off

        """

    /// The keys the load asks for (`checking_load.py`): 100 launches and 200 page sizes.
    static let loadKeys = 300

    // MARK: - systemd

    /// `systemctl restart` as the socket units make it: `systemd-socket-activate` holds both
    /// listening sockets and runs a shell that starts the proxy again whenever it exits, each time
    /// with the activation protocol (LISTEN_PID is the proxy's own pid). The restart is a SIGTERM
    /// to the proxy; connections made meanwhile wait in the kernel's queue.
    @Test func restartThroughSocketActivationRefusesNothingAndKeepsTheHitRatio() throws {
        // Debian's systemd package ships it (scripts/install-deps.sh installs it).
        let activate = "/usr/bin/systemd-socket-activate"
        try #require(FileManager.default.isExecutableFile(atPath: activate), "systemd-socket-activate is installed")
        let origin = try DemoOriginProcess()
        let folder = try HandoverTests.Folder(yaml: Self.yaml)
        let (port, adminPort) = (FreePort.allocate(), FreePort.allocate())
        let run = try Self.runCommand(folder, origin: origin, listen: port)
        let stopFile = folder.path("stop")
        let loop = """
            while [ ! -e \(stopFile) ]; do /bin/sh -c 'LISTEN_PID=$$; export LISTEN_PID; exec \(run)'; done
            """
        let holder = ManagedProcess(
            executable: activate,
            arguments: [
                "-l", "127.0.0.1:\(port)", "-l", "127.0.0.1:\(adminPort)", "--fdname=graphql:admin", "/bin/sh", "-c",
                loop,
            ])
        try holder.start()
        defer {
            FileManager.default.createFile(atPath: stopFile, contents: nil)
            Self.proxyPIDs(under: holder).forEach { kill($0, SIGTERM) }
            _ = holder.waitForExit(timeout: .seconds(15))
            _ = holder.terminate()
        }
        _ = try holder.waitForLine(containing: "Listening on 127.0.0.1:\(port)", timeout: .seconds(10))
        // The first connection starts the service, as a socket unit's does (answered 503
        // `starting` until the service has started).
        #expect(try eventually(within: .seconds(10)) { try HTTPClient(port: adminPort).get("/readyz").status == 200 })
        _ = try holder.waitForLine(containing: "serving 2 listening sockets from systemd", timeout: .seconds(10))

        let load = try CheckingLoad(port: port)
        defer { load.cancel() }
        try Self.waitUntilWarm(adminPort: adminPort)
        let restarted = Date().timeIntervalSince1970
        let first = try #require(Self.proxyPIDs(under: holder).first)
        kill(first, SIGTERM)
        _ = try holder.waitForLine(
            matching: { $0.contains("cache snapshot loaded") }, timeout: .seconds(20))
        let switched = try Self.waitForServingAgain(adminPort: adminPort, after: restarted)
        let result = try load.stop(after: switched + 1.5)
        Self.expectUnharmed(result, restarted: restarted, switched: switched, "restart through socket activation")
    }

    // MARK: - Takeover

    /// `run --takeover` to a second binary under load: the old process writes its snapshot, hands
    /// its sockets over, and drains once the new one (which loaded the snapshot) is ready.
    @Test func takeoverRefusesNothingAndKeepsTheHitRatio() throws {
        let origin = try DemoOriginProcess()
        let folder = try HandoverTests.Folder(yaml: Self.yaml)
        let arguments = Self.runArguments(folder, origin: origin, listen: 0)
        let old = ManagedProcess(executable: try BreakwaterBinary.path(), arguments: arguments)
        try old.start()
        defer { _ = old.terminate() }
        let line = try old.waitForLine(matching: { $0.contains("breakwater: listening on") }, timeout: .seconds(20))
        let port = try #require(ManagedProcess.listeningPort(in: line))
        let adminLine = try old.waitForLine(containing: "admin listening on", timeout: .seconds(5))
        let adminPort = try #require(ManagedProcess.listeningPort(in: adminLine))

        let load = try CheckingLoad(port: port)
        defer { load.cancel() }
        try Self.waitUntilWarm(adminPort: adminPort)
        // An upgrade: the new process runs another binary file (a copy, as an installed upgrade is).
        let next = folder.path("breakwater-next")
        try FileManager.default.copyItem(atPath: try BreakwaterBinary.path(), toPath: next)
        let restarted = Date().timeIntervalSince1970
        let new = ManagedProcess(executable: next, arguments: arguments + ["--takeover", folder.path("handover.sock")])
        try new.start()
        defer { _ = new.terminate() }
        _ = try new.waitForLine(containing: "takeover: serving on inherited sockets", timeout: .seconds(20))
        let switched = Date().timeIntervalSince1970
        _ = try new.waitForLine(containing: "cache snapshot loaded", timeout: .seconds(10))
        #expect(old.waitForExit(timeout: .seconds(15)) == 0, "the old process drained and exited")
        let result = try load.stop(after: switched + 1.5)
        Self.expectUnharmed(result, restarted: restarted, switched: switched, "takeover")
        new.signal(SIGTERM)
        #expect(new.waitForExit(timeout: .seconds(10)) == 0)
    }

    // MARK: - Support

    private static func runArguments(_ folder: HandoverTests.Folder, origin: DemoOriginProcess, listen: Int) -> [String] {
        [
            "run", "--config", folder.config, "--origin", origin.url, "--listen", "127.0.0.1:\(listen)",
            "--admin-listen", "127.0.0.1:0", "--threads", "2", "--log-level", "notice",
        ]
    }

    /// The proxy's command line for a shell (no argument holds a quote or a space).
    private static func runCommand(_ folder: HandoverTests.Folder, origin: DemoOriginProcess, listen: Int) throws -> String {
        ([try BreakwaterBinary.path()] + runArguments(folder, origin: origin, listen: listen)).joined(separator: " ")
    }

    /// The proxies the holder's shell runs (its children, read from /proc).
    private static func proxyPIDs(under holder: ManagedProcess) -> [Int32] {
        guard let pid = holder.processIdentifier,
            let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
        else { return [] }
        return children.split(separator: " ").compactMap { Int32($0) }
    }

    /// Until every key the load asks for is stored: the hit ratio before the switch is then the
    /// warm one.
    private static func waitUntilWarm(adminPort: Int) throws {
        let warm = try eventually(within: .seconds(30)) {
            let stats = try HTTPClient(port: adminPort).get("/stats").jsonObject
            return ((stats?["cache"] as? [String: Any])?["entries"] as? Int ?? 0) >= loadKeys
        }
        #expect(warm, "the load filled the cache")
        // The second before the switch is then one of a warm cache, not of its last misses.
        Thread.sleep(forTimeInterval: 1.2)
    }

    /// When `/readyz` answers 200 again after `restarted` (wall-clock seconds), polled: the moment
    /// the new process serves.
    private static func waitForServingAgain(adminPort: Int, after restarted: Double) throws -> Double {
        let ready = try eventually(within: .seconds(20)) {
            (try? HTTPClient(port: adminPort).get("/readyz").status) == 200
        }
        #expect(ready, "the restarted proxy became ready")
        return max(restarted, Date().timeIntervalSince1970)
    }

    private static func expectUnharmed(_ result: CheckingLoad.Result, restarted: Double, switched: Double, _ context: String) {
        let before = result.hitRatio(from: restarted - 1, to: restarted)
        let after = result.hitRatio(from: switched, to: switched + 1)
        print(
            "\(context): \(result.causes), hit ratio before \(before.map { String(format: "%.3f", $0) } ?? "-"), "
                + "first second after \(after.map { String(format: "%.3f", $0) } ?? "-")")
        #expect(result.causes["ok", default: 0] > 100, "\(context): the load ran")
        #expect(result.causes["refused", default: 0] == 0, "\(context): \(result.examples)")
        #expect(result.failed == 0, "\(context): \(result.examples)")
        guard let before, let after else {
            Issue.record("\(context): no answers around the switch")
            return
        }
        #expect(after >= before - 0.05, "\(context): hit ratio \(before) before, \(after) in the first second after")
    }
}

/// `Tests/fixtures/checking_load.py` running against a port: keep-alive clients over 300 cached
/// launch queries, every answer checked, stopped by a file.
final class CheckingLoad: @unchecked Sendable {
    struct Result {
        var causes: [String: Int]
        var failed: Int
        var examples: [String]
        /// [bucket start (wall-clock s), answers, hits] per 100 ms.
        var timeline: [[Double]]

        /// Hits over answers in the buckets that start in [from, to).
        func hitRatio(from: Double, to: Double) -> Double? {
            let window = timeline.filter { $0[0] >= from && $0[0] < to }
            let answers = window.reduce(0) { $0 + $1[1] }
            return answers > 0 ? window.reduce(0) { $0 + $1[2] } / answers : nil
        }
    }

    private let process: ManagedProcess
    private let stopFile: String

    init(port: Int, connections: Int = 6) throws {
        stopFile = FileManager.default.temporaryDirectory.appendingPathComponent("bw-load-\(UUID().uuidString)").path
        process = ManagedProcess(
            executable: "/usr/bin/env",
            arguments: [
                "python3", RestartTests.fixtures.appendingPathComponent("checking_load.py").path, "--port", String(port),
                "--connections", String(connections), "--seconds", "120", "--stop-file", stopFile,
            ])
        try process.start()
        _ = try process.waitForLine(containing: "\"started\"", timeout: .seconds(10))
    }

    /// Stops the load once the wall clock passed `moment`, and returns what it saw.
    func stop(after moment: Double) throws -> Result {
        while Date().timeIntervalSince1970 < moment { Thread.sleep(forTimeInterval: 0.05) }
        FileManager.default.createFile(atPath: stopFile, contents: nil)
        let line = try process.waitForLine(containing: "\"causes\"", timeout: .seconds(20))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return Result(
            causes: object["causes"] as? [String: Int] ?? [:], failed: object["failed"] as? Int ?? -1,
            examples: object["examples"] as? [String] ?? [],
            timeline: (object["timeline"] as? [[NSNumber]] ?? []).map { $0.map(\.doubleValue) })
    }

    func cancel() {
        FileManager.default.createFile(atPath: stopFile, contents: nil)
        _ = process.waitForExit(timeout: .seconds(15))
        _ = process.terminate()
        try? FileManager.default.removeItem(atPath: stopFile)
    }
}
