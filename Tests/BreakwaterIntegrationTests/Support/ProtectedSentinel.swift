// A Redis Sentinel that wants a password of its own (`requirepass` in its file) watching one real
// `redis-server` master, both on loopback ephemeral ports, for the `redis.sentinel_password` tests.
// Every process is stopped.

import BreakwaterTesting
import Foundation

/// One master and one sentinel with `requirepass`; the master itself has no password.
final class ProtectedSentinel: @unchecked Sendable {
    static let masterName = "bwprotected"
    let master: RedisServerProcess
    let port: Int
    let password: String
    private let sentinel: ManagedProcess
    private let directory: URL

    /// `host:port` as `redis.sentinels` lists it.
    var address: String { "127.0.0.1:\(port)" }

    init(password: String) throws {
        self.password = password
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-sentinel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        master = try RedisServerProcess(extraArguments: ["--dir", directory.path])
        port = FreePort.allocate()
        // A sentinel rewrites its own file: it gets one in the temporary folder.
        let file = directory.appendingPathComponent("sentinel.conf")
        try """
        port \(port)
        bind 127.0.0.1
        protected-mode no
        daemonize no
        requirepass \(password)
        sentinel monitor \(Self.masterName) 127.0.0.1 \(master.port) 1
        sentinel down-after-milliseconds \(Self.masterName) 5000

        """.write(to: file, atomically: true, encoding: .utf8)
        sentinel = ManagedProcess(executable: "redis-server", arguments: [file.path, "--sentinel"])
        try sentinel.start()
        _ = try sentinel.waitForLine(containing: "+monitor master", timeout: .seconds(10))
    }

    /// Runs `redis-cli` against the sentinel with its password; the output, trimmed.
    func cli(_ arguments: String...) throws -> String {
        try RedisServerProcess.cli(port: port, ["-a", password, "--no-auth-warning"] + arguments)
    }

    /// How many error replies the sentinel has sent (`INFO stats` `total_error_replies`): a refused
    /// login costs one per command sent on it.
    func errorReplies() throws -> Int {
        let stats = try cli("INFO", "stats")
        let name = "total_error_replies:"
        let line = stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix(name) }
        return line.flatMap { Int($0.dropFirst(name.count).trimmingCharacters(in: .whitespaces)) } ?? -1
    }

    deinit {
        _ = sentinel.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}
