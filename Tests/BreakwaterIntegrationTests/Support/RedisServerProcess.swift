// A real `redis-server` (Debian's package) for the fleet tests: started on a free loopback port
// without persistence, killed and restarted on the same port on demand, always stopped.

import BreakwaterTesting
import Foundation
import Testing

/// One redis-server process; `restart()` brings it back on the same port, empty.
final class RedisServerProcess: @unchecked Sendable {
    let port: Int
    private let extraArguments: [String]
    private let lock = NSLock()
    private var process: ManagedProcess?

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts redis-server with `extraArguments` (e.g. `["--maxmemory", "1mb"]`).
    init(extraArguments: [String] = []) throws {
        port = FreePort.allocate()
        self.extraArguments = extraArguments
        try start()
    }

    private func start() throws {
        let process = ManagedProcess(
            executable: "redis-server",
            arguments: [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--loglevel", "notice", "--protected-mode", "no",
                // DEBUG SLEEP and DEBUG POPULATE make a slow and a full Redis (Redis 7 needs this).
                "--enable-debug-command", "local",
            ] + extraArguments)
        try process.start()
        _ = try process.waitForLine(containing: "Ready to accept connections", timeout: .seconds(10))
        lock.withLock { self.process = process }
    }

    /// Kills the server at once (SIGKILL: no goodbye to the clients, as in a crash).
    func kill() {
        guard let process = lock.withLock({ self.process }) else { return }
        process.signal(SIGKILL)
        _ = process.waitForExit(timeout: .seconds(5))
        lock.withLock { self.process = nil }
    }

    /// Freezes the server (SIGSTOP): connections stay open, nothing is answered.
    func pause() { lock.withLock { process }?.signal(SIGSTOP) }

    /// Lets a paused server go on (SIGCONT).
    func resume() { lock.withLock { process }?.signal(SIGCONT) }

    /// Starts a fresh, empty server on the same port.
    func restart() throws {
        kill()
        try start()
    }

    /// Runs `redis-cli` against this server and returns its output, trimmed.
    @discardableResult
    func cli(_ arguments: String...) throws -> String {
        try cli(arguments)
    }

    @discardableResult
    func cli(_ arguments: [String]) throws -> String {
        try Self.cli(port: port, arguments)
    }

    /// Runs `redis-cli -p port arguments` (a server or a sentinel) and returns its output, trimmed.
    static func cli(port: Int, _ arguments: [String]) throws -> String {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-p", String(port)] + arguments
        let output = Pipe()
        cli.standardOutput = output
        cli.standardError = output
        try cli.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        cli.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        resume()
        lock.withLock { process }?.terminate()
    }
}
