// Watches one spawned process: a thread reads its merged output into lines, another reaps its exit.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The live state of a spawned process; every mutable field is guarded by `condition`.
///
/// The threads hold the monitor, not the ManagedProcess, so a forgotten ManagedProcess still deinits
/// and kills its child.
final class ProcessMonitor: @unchecked Sendable {
    enum LineWait {
        case found(String)
        case exited(Int32?)
        case timedOut
    }

    let pid: pid_t
    private let condition = NSCondition()
    private var lines: [String] = []
    private var partialLine: [UInt8] = []
    private var exitStatus: Int32?
    private var hasExited = false
    private var outputEnded = false

    init(pid: pid_t, outputDescriptor: Int32) {
        self.pid = pid
        let reader = Thread { [self] in readOutput(from: outputDescriptor) }
        reader.name = "ManagedProcess \(pid) output"
        reader.start()
        let reaper = Thread { [self] in reapExit() }
        reaper.name = "ManagedProcess \(pid) wait"
        reaper.start()
    }

    var output: [String] { condition.withLock { lines } }

    var isRunning: Bool { condition.withLock { !hasExited } }

    var status: Int32? { condition.withLock { exitStatus } }

    /// The first line, from the start of the output, that satisfies `predicate`.
    func waitForLine(matching predicate: (String) -> Bool, timeout: Duration) -> LineWait {
        let deadline = Date(timeIntervalSinceNow: Double(Posix.milliseconds(timeout)) / 1000)
        var checked = 0
        while true {
            // The predicate runs outside the lock, so it may read this process's output.
            let (fresh, finished, status) = condition.withLock {
                (lines[checked...], hasExited && outputEnded, exitStatus)
            }
            if let match = fresh.first(where: predicate) { return .found(match) }
            checked += fresh.count
            if finished { return .exited(status) }
            let timedOut = condition.withLock {
                while lines.count == checked && !(hasExited && outputEnded) {
                    if !condition.wait(until: deadline) { return true }
                }
                return false
            }
            if timedOut { return .timedOut }
        }
    }

    /// The exit status once the process has exited, or nil if it is still running after `timeout`.
    func waitForExit(timeout: Duration) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: Double(Posix.milliseconds(timeout)) / 1000)
        return condition.withLock {
            while !hasExited {
                if !condition.wait(until: deadline) { break }
            }
            return exitStatus
        }
    }

    /// Sends a signal to the process alone, if it has not been reaped.
    func signalProcess(_ signal: Int32) {
        condition.withLock {
            if !hasExited { _ = kill(pid, signal) }
        }
    }

    /// Sends a signal to the process's whole group while any member may be alive.
    ///
    /// After the leader is reaped, its number stays reserved while group members live; an ended output
    /// pipe means none are left, so the number may then belong to someone else.
    func signalGroup(_ signal: Int32) {
        condition.withLock {
            if !hasExited || !outputEnded { _ = kill(-pid, signal) }
        }
    }

    // MARK: Threads

    private func readOutput(from descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            let (count, _) = buffer.withUnsafeMutableBytes { raw in
                Posix.retrying { read(descriptor, raw.baseAddress, raw.count) }
            }
            if count <= 0 { break }
            append(buffer[0..<count])
        }
        _ = close(descriptor)
        condition.withLock {
            if !partialLine.isEmpty { lines.append(Self.decode(partialLine[...])) }
            partialLine = []
            outputEnded = true
            condition.broadcast()
        }
    }

    private func append(_ bytes: ArraySlice<UInt8>) {
        condition.withLock {
            partialLine += bytes
            var start = partialLine.startIndex
            while let newline = partialLine[start...].firstIndex(of: 10) {
                lines.append(Self.decode(partialLine[start..<newline]))
                start = newline + 1
            }
            if start > partialLine.startIndex {
                partialLine.removeFirst(start - partialLine.startIndex)
                condition.broadcast()
            }
        }
    }

    private func reapExit() {
        var rawStatus: Int32 = 0
        let (result, _) = Posix.retrying { waitpid(pid, &rawStatus, 0) }
        condition.withLock {
            exitStatus = result == pid ? Self.exitCode(rawStatus) : nil
            hasExited = true
            condition.broadcast()
        }
    }

    /// A line without its terminator, a trailing carriage return dropped.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.last == 13 ? bytes.dropLast() : bytes, as: UTF8.self)
    }

    /// The exit code, or 128 plus the signal number for a process killed by a signal, as shells report.
    private static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}
