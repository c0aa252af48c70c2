// Reads the process's resource use for `/metrics` (the `process_*` families): resident and
// virtual memory from /proc/self/statm, open descriptors from /proc/self/fd, CPU time from
// getrusage, the descriptor limit from getrlimit. Linux; elsewhere only CPU and limits.

import BreakwaterCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Samples `ProcessFigures` on demand (an admin request, never an event loop's hot path).
struct ProcessSampler: Sendable {
    /// Wall-clock start, seconds since the Unix epoch.
    let startTimeSeconds: Double

    init(startTimeSeconds: Double = Date().timeIntervalSince1970) {
        self.startTimeSeconds = startTimeSeconds
    }

    func sample() -> ProcessFigures {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        let pages = statm.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Self.seconds(usage.ru_utime) + Self.seconds(usage.ru_stime)
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return ProcessFigures(
            residentMemoryBytes: pages.count > 1 ? pages[1] * pageSize : 0,
            virtualMemoryBytes: pages.first.map { $0 * pageSize } ?? 0,
            // Listing the folder opens one descriptor of its own.
            openFileDescriptors: max(0, descriptors - 1),
            maxFileDescriptors: Int(clamping: limit.rlim_cur),
            cpuSeconds: cpu, startTimeSeconds: startTimeSeconds)
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }
}
