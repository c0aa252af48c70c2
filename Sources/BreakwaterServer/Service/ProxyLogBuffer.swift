// One event loop's access-log buffer: each answered request's line is formatted straight into it
// (bytes, a per-second cached time, no swift-log record), and the log writer thread takes the
// whole buffer in exchange for an empty one, once per batch. A loop never waits for the output:
// past `ProxyAccessLog.maxBufferedBytes` not yet taken, lines are dropped and counted.

import BreakwaterCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The access-log lines one loop wrote since the writer last took them.
package final class ProxyLogBuffer: Sendable {
    private struct State {
        var bytes: [UInt8] = []
        var lines = 0
        var dropped = 0
        var times = LogTimeCache()
    }

    /// Taken by the loop for one line and by the writer for one swap; almost never contended
    /// (a coalesced answer may be logged from the fetching loop's thread, hence a lock at all).
    private let state = Mutex(State())
    private let control: ProxyLogControl

    init(control: ProxyLogControl) {
        self.control = control
    }

    /// Whether answers should be logged at all (`logging.access_log` is not `off`).
    package var isOn: Bool { control.format != nil }

    /// Appends `entry`'s line.
    package func append(_ entry: AccessLogEntry) {
        guard let format = control.format else { return }
        let becameNonEmpty = state.withLock { state -> Bool in
            guard state.bytes.count < ProxyAccessLog.maxBufferedBytes else {
                state.dropped += 1
                return false
            }
            let wasEmpty = state.bytes.isEmpty
            entry.append(to: &state.bytes, format: format, times: &state.times)
            state.bytes.append(UInt8(ascii: "\n"))
            state.lines += 1
            return wasEmpty
        }
        // The writer sleeps until some buffer has lines: tell it once per batch, not per line.
        if becameNonEmpty { control.wakeWriter() }
    }

    /// Exchanges the buffered lines for `spare` (emptied, its capacity kept for the next batch):
    /// afterwards `spare` holds the lines; returns their count and the lines dropped since.
    func take(into spare: inout [UInt8]) -> (lines: Int, dropped: Int) {
        spare.removeAll(keepingCapacity: true)
        return state.withLock { state in
            swap(&state.bytes, &spare)
            defer {
                state.lines = 0
                state.dropped = 0
            }
            return (state.lines, state.dropped)
        }
    }
}

extension LogTimestamp {
    /// The wall clock now (a vDSO call, no system call).
    package static var now: LogTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return LogTimestamp(millisecondsSinceEpoch: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
