// A Redis Sentinel setup for the failover tests: a master, a replica of it and three sentinels
// watching it under one name, all real `redis-server` processes on loopback, with small
// timeouts (down after 500 ms) so that a failover takes seconds. Every process is stopped.

import BreakwaterTesting
import Foundation
import Testing

/// A master, a replica and three sentinels; `killMaster()` makes the sentinels fail over.
final class SentinelCluster: @unchecked Sendable {
    static let masterName = "bwmaster"
    let master: RedisServerProcess
    let replica: RedisServerProcess
    let sentinelPorts: [Int]
    private let sentinels: [ManagedProcess]
    private let directory: URL

    /// `host:port` of each sentinel, as `redis.sentinels` lists them.
    var sentinelAddresses: [String] { sentinelPorts.map { "127.0.0.1:\($0)" } }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-sentinel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // A replica's first sync writes an RDB file: into the temporary folder, not the work tree.
        master = try RedisServerProcess(extraArguments: ["--dir", directory.path])
        replica = try RedisServerProcess(extraArguments: ["--dir", directory.path])
        try replica.cli("REPLICAOF", "127.0.0.1", String(master.port))
        var ports: [Int] = []
        var processes: [ManagedProcess] = []
        for index in 0..<3 {
            let port = FreePort.allocate()
            // A sentinel rewrites its own file: each gets one.
            let file = directory.appendingPathComponent("sentinel-\(index).conf")
            try """
            port \(port)
            bind 127.0.0.1
            protected-mode no
            daemonize no
            sentinel monitor \(Self.masterName) 127.0.0.1 \(master.port) 2
            sentinel down-after-milliseconds \(Self.masterName) 500
            sentinel failover-timeout \(Self.masterName) 3000
            sentinel parallel-syncs \(Self.masterName) 1

            """.write(to: file, atomically: true, encoding: .utf8)
            let process = ManagedProcess(executable: "redis-server", arguments: [file.path, "--sentinel"])
            try process.start()
            ports.append(port)
            processes.append(process)
        }
        sentinelPorts = ports
        sentinels = processes
        for process in processes { _ = try process.waitForLine(containing: "+monitor master", timeout: .seconds(10)) }
    }

    /// Waits until the replica is in sync and every sentinel knows the replica and the two other
    /// sentinels (only then can they agree on a failover).
    func waitUntilWatched(timeout: Duration = .seconds(30)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let synced = (try? replica.cli("INFO", "replication"))?.contains("master_link_status:up") == true
            let known = sentinelPorts.allSatisfy { port in
                let master = (try? Self.cli(port, ["SENTINEL", "master", Self.masterName])) ?? ""
                return Self.field("num-slaves", in: master) == "1" && Self.field("num-other-sentinels", in: master) == "2"
            }
            if synced && known { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        Issue.record("the sentinels did not watch the master and its replica within \(timeout)")
    }

    /// The master's `host:port` as the first sentinel that answers sees it.
    func currentMaster() -> String? {
        for port in sentinelPorts {
            let lines = ((try? Self.cli(port, ["SENTINEL", "get-master-addr-by-name", Self.masterName])) ?? "")
                .split(separator: "\n").map(String.init)
            if lines.count == 2 { return "\(lines[0]):\(lines[1])" }
        }
        return nil
    }

    /// A value in the flat name/value list `redis-cli` prints for `SENTINEL master`.
    private static func field(_ name: String, in output: String) -> String? {
        let lines = output.split(separator: "\n").map(String.init)
        guard let index = lines.firstIndex(of: name), index + 1 < lines.count else { return nil }
        return lines[index + 1]
    }

    private static func cli(_ port: Int, _ arguments: [String]) throws -> String {
        try RedisServerProcess.cli(port: port, arguments)
    }

    deinit {
        for sentinel in sentinels { _ = sentinel.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }
}
