// One event loop's access-log buffer: each answered request's fields are packed as a compact
// record (AccessLogRecord: fixed-width numbers and the strings' bytes, no entry, no swift-log
// record) and spelled at once, on the loop that answered, as a line into the buffer (the time's
// text made once a second, LogLineMemory). The log writer thread swaps the buffer for its emptied
// spare once per batch and only writes the bytes: spelling a batch of lines at once there took the
// CPU from the loop for milliseconds at a time, and lengthened the tail of the requests it held
// up (BENCHMARKS.md, "What logging costs"). A loop never waits for the output: past
// `ProxyAccessLog.maxBufferedBytes` of lines not yet taken, lines are dropped and counted.

import BreakwaterCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The access-log lines one loop wrote since the writer last took them.
package final class ProxyLogBuffer: Sendable {
    private struct State: ~Copyable {
        /// The lines spelled since the writer last took them.
        var bytes = LogLineBuffer(capacity: 4096)
        var lines = 0
        var dropped = 0
        /// One record at a time, spelled into `bytes` at once.
        var record = LogLineBuffer(capacity: 1024)
        /// What the spelling remembers from one line to the next.
        var memory = LogLineMemory()
    }

    /// Taken by the loop for one line and by the writer for one swap: an uncontended lock is two
    /// atomic operations (a coalesced answer may be logged from the fetching loop's thread, hence
    /// a lock at all).
    private let state = Mutex(State())
    /// The writer's side of the swap: the last batch taken, written outside `state`'s lock.
    private let taken = Mutex(LogLineBuffer(capacity: 4096))
    private let control: ProxyLogControl

    /// Room a buffer keeps once written: a few of a busy loop's batches of lines (10 ms at 100k
    /// requests a second is about 300 KiB), not a freak burst's (each loop keeps two buffers).
    static let roomKept = 1 << 20
    /// Room the record buffer keeps: a record with every string at its longest.
    private static let recordRoomKept = 4096

    init(control: ProxyLogControl) {
        self.control = control
    }

    /// Whether answers should be logged at all (`logging.access_log` is not `off`).
    package var isOn: Bool { control.format != nil }

    /// Appends the line of one record that `write` writes (with `AccessLogRecord.append`) to the
    /// loop's buffer, in the format the last reload set.
    func append(_ write: (inout LogLineBuffer, Configuration.LogFormat) -> Void) {
        guard let format = control.format else { return }
        let becameNonEmpty = state.withLock { state -> Bool in
            guard state.bytes.count < ProxyAccessLog.maxBufferedBytes else {
                state.dropped += 1
                return false
            }
            let wasEmpty = state.bytes.isEmpty
            write(&state.record, format)
            state.record.withUnsafeBytes {
                AccessLogLine.append(records: $0, to: &state.bytes, memory: &state.memory)
            }
            state.record.removeAll(keepingAtMost: Self.recordRoomKept)
            state.lines += 1
            return wasEmpty
        }
        // A writer that went idle is woken by the first line after; a busy one comes back by itself.
        if becameNonEmpty { control.wakeWriterIfParked() }
    }

    /// Appends `entry`'s record (tests, one-off lines).
    package func append(_ entry: AccessLogEntry) {
        append { entry.appendRecord(to: &$0, format: $1) }
    }

    /// Whether no line waits.
    var isEmpty: Bool { state.withLock { $0.bytes.isEmpty } }

    /// Takes the buffered lines (an exchange of buffers under the lock) and hands their bytes to
    /// `write`; returns their count and the lines dropped since the last take. Only the writer
    /// calls this.
    func take(_ write: (UnsafeRawBufferPointer) -> Void) -> (lines: Int, dropped: Int) {
        taken.withLock { taken in
            let counts = state.withLock { state in
                swap(&state.bytes, &taken)
                defer {
                    state.lines = 0
                    state.dropped = 0
                }
                return (state.lines, state.dropped)
            }
            taken.withUnsafeBytes(write)
            taken.removeAll(keepingAtMost: Self.roomKept)
            return counts
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
