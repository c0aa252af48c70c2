// A child process an integration test starts, reads and always stops: the proxy or the demo origin.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process started with its stdout and stderr merged into one line buffer, killed at the latest on deinit.
///
/// The process leads its own process group; `terminate` and deinit signal the whole group, so helpers it
/// started are stopped too. Thread-safe.
public final class ManagedProcess: @unchecked Sendable {
    public let executable: String
    public let arguments: [String]
    /// Variables set on top of the test runner's own environment.
    public let environment: [String: String]

    private let lock = NSLock()
    private var monitor: ProcessMonitor?  // guarded by lock

    public init(executable: String, arguments: [String], environment: [String: String] = [:]) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
    }

    deinit {
        guard let monitor = lock.withLock({ monitor }) else { return }
        monitor.signalGroup(SIGKILL)
        _ = monitor.waitForExit(timeout: .seconds(5))
        monitor.signalGroup(SIGKILL)
    }

    /// Spawns the process; an executable without a slash is searched in PATH.
    public func start() throws {
        try lock.withLock {
            guard monitor == nil else { throw ManagedProcessError.alreadyStarted(executable: executable) }
            let (pid, output) = try ProcessSpawner.spawn(
                executable: executable, arguments: arguments, environment: environment)
            monitor = ProcessMonitor(pid: pid, outputDescriptor: output)
        }
    }

    /// The process id once started.
    public var processIdentifier: Int32? { currentMonitor?.pid }

    /// Whether the process has been started and not yet exited.
    public var isRunning: Bool { currentMonitor?.isRunning ?? false }

    /// The exit status once exited: the exit code, or 128 plus the signal number if a signal killed it.
    public var exitStatus: Int32? { currentMonitor?.status }

    /// Every complete stdout and stderr line so far, in arrival order, for failure messages.
    public var output: [String] { currentMonitor?.output ?? [] }

    /// The first output line, from the start, that satisfies `predicate`, waiting up to `timeout` for it.
    ///
    /// Throws `ManagedProcessError.exited` as soon as the process has exited with no match, and
    /// `.timedOut` when the time runs out; both carry the output.
    public func waitForLine(matching predicate: (String) -> Bool, timeout: Duration) throws -> String {
        let monitor = try startedMonitor()
        switch monitor.waitForLine(matching: predicate, timeout: timeout) {
        case .found(let line):
            return line
        case .exited(let status):
            throw ManagedProcessError.exited(executable: executable, status: status, output: monitor.output)
        case .timedOut:
            throw ManagedProcessError.timedOut(executable: executable, timeout: timeout, output: monitor.output)
        }
    }

    /// The first output line containing `text`, waiting up to `timeout` for it.
    public func waitForLine(containing text: String, timeout: Duration) throws -> String {
        try waitForLine(matching: { $0.contains(text) }, timeout: timeout)
    }

    /// Sends `sig` (such as SIGHUP) to the process itself, not its group; nothing if it is not running.
    public func signal(_ sig: Int32) {
        currentMonitor?.signalProcess(sig)
    }

    /// Sends SIGTERM to the process group, waits up to `timeout`, then SIGKILL; returns the exit status.
    ///
    /// Returns nil only if the process was never started or survived SIGKILL for five seconds.
    @discardableResult
    public func terminate(timeout: Duration = .seconds(5)) -> Int32? {
        guard let monitor = currentMonitor else { return nil }
        monitor.signalGroup(SIGTERM)
        var status = monitor.waitForExit(timeout: timeout)
        if monitor.isRunning {
            monitor.signalGroup(SIGKILL)
            status = monitor.waitForExit(timeout: .seconds(5))
        }
        // Helpers that outlived the leader still hold the output pipe.
        monitor.signalGroup(SIGKILL)
        return status
    }

    /// The exit status once the process exits, or nil if still running after `timeout` (or never started).
    public func waitForExit(timeout: Duration) -> Int32? {
        currentMonitor?.waitForExit(timeout: timeout)
    }

    /// The port in a line such as `listening on http://127.0.0.1:43567/graphql`: the digits after the
    /// last `127.0.0.1:`.
    public static func listeningPort(in line: String) -> Int? {
        guard let marker = line.range(of: "127.0.0.1:", options: .backwards) else { return nil }
        let digits = line[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard let port = Int(digits), (1...65535).contains(port) else { return nil }
        return port
    }

    // MARK: Internals

    private var currentMonitor: ProcessMonitor? { lock.withLock { monitor } }

    private func startedMonitor() throws -> ProcessMonitor {
        guard let monitor = currentMonitor else { throw ManagedProcessError.notStarted(executable: executable) }
        return monitor
    }
}
