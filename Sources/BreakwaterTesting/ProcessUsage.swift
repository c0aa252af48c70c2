// What a running process costs, read from Linux's /proc: resident memory and CPU time, for live
// tests that bound a server's memory and CPU under an attack.
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One reading of a process's resident memory and CPU time, with when it was taken.
public struct ProcessUsage: Sendable, CustomStringConvertible {
    /// `VmRSS` of /proc/<pid>/status, in bytes.
    public let residentBytes: Int
    /// User plus system CPU time so far (`utime` + `stime` of /proc/<pid>/stat), in seconds.
    public let cpuSeconds: Double
    /// When the reading was taken.
    public let takenAt: ContinuousClock.Instant

    /// Reads the process `pid`; throws when it has no /proc entry (exited, or not Linux).
    public init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kibibytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({ Int($0) })
        else { throw ProcessUsageError(pid: pid, reason: "no VmRSS line in /proc/\(pid)/status") }
        // The command name in parentheses may hold spaces: count the fields after its closing one.
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        guard let close = stat.lastIndex(of: ")") else {
            throw ProcessUsageError(pid: pid, reason: "unreadable /proc/\(pid)/stat")
        }
        let fields = stat[stat.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw ProcessUsageError(pid: pid, reason: "unreadable /proc/\(pid)/stat")
        }
        residentBytes = kibibytes * 1024
        cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        takenAt = .now
    }

    /// Resident memory grown since `earlier`, in bytes (negative when it shrank).
    public func residentGrowth(since earlier: ProcessUsage) -> Int { residentBytes - earlier.residentBytes }

    /// CPU seconds spent since `earlier`.
    public func cpuSpent(since earlier: ProcessUsage) -> Double { cpuSeconds - earlier.cpuSeconds }

    /// Wall-clock seconds since `earlier`.
    public func wallSeconds(since earlier: ProcessUsage) -> Double {
        let elapsed = takenAt - earlier.takenAt
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    public var description: String {
        String(format: "RSS %.1f MiB, CPU %.2f s", Double(residentBytes) / 1_048_576, cpuSeconds)
    }
}

/// A process whose /proc entry could not be read.
public struct ProcessUsageError: Error, CustomStringConvertible {
    public let pid: Int32
    public let reason: String
    public var description: String { reason }
}
