// The one thread that writes log lines. Event loops only append a record to a bounded queue
// under a short lock and never wait for a terminal, a pipe or a disk; records are rendered and
// written here, in order. A full queue drops records and says how many, rather than block.

import BreakwaterCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes log records to stdout, stderr and the access-log destination on its own thread.
final class LogWriter: @unchecked Sendable {
    /// What a caller hands over; rendering happens on the writer thread.
    enum Item {
        case record(LogLineFormat.Record, toStdout: Bool)
        case access(AccessLogEntry)
        /// A line already rendered (console lines), to stdout.
        case console(String)
        case configure(Configuration.LogFormat, Configuration.AccessLogDestination, reopen: Bool)
        /// Signals `flush` once everything before it is written.
        case barrier(DispatchSemaphore)
    }

    /// Records waiting beyond this are dropped (and counted).
    static let capacity = 65_536

    private let condition = NSCondition()
    private var pending: [Item] = []  // guarded by condition
    private var dropped = 0  // guarded by condition

    // Writer-thread state.
    private var format = Configuration.LogFormat.text
    private var destination = Configuration.AccessLogDestination.stdout
    private var accessFile: Int32 = -1

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "breakwater-log"
        thread.start()
    }

    /// Queues `item`; never blocks on output.
    func enqueue(_ item: Item) {
        condition.lock()
        if pending.count >= Self.capacity, !item.isControl {
            dropped += 1
            condition.unlock()
            return
        }
        pending.append(item)
        if pending.count == 1 { condition.signal() }
        condition.unlock()
    }

    /// Returns once everything queued before the call is written (or after `timeout`).
    func flush(timeout: Duration = .seconds(2)) {
        let done = DispatchSemaphore(value: 0)
        enqueue(.barrier(done))
        let (seconds, attoseconds) = timeout.components
        _ = done.wait(timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
    }

    private func run() {
        var batch: [Item] = []
        while true {
            condition.lock()
            while pending.isEmpty { condition.wait() }
            swap(&batch, &pending)
            let lost = dropped
            dropped = 0
            condition.unlock()
            var stdout: [UInt8] = [], stderr: [UInt8] = [], access: [UInt8] = []
            if lost > 0 {
                let note = LogLineFormat.Record(
                    time: .now, level: "warning", label: "breakwater",
                    message: "log writer fell behind: records dropped", fields: [("dropped", "\(lost)")])
                append(LogLineFormat.line(note, format: format), to: &stderr)
            }
            for item in batch {
                switch item {
                case .record(let record, let toStdout):
                    if toStdout {
                        append(LogLineFormat.line(record, format: format), to: &stdout)
                    } else {
                        append(LogLineFormat.line(record, format: format), to: &stderr)
                    }
                case .access(let entry):
                    append(entry.line(format), to: &access)
                case .console(let line):
                    append(line, to: &stdout)
                case .configure(let format, let destination, let reopen):
                    writeAll(&stdout, &stderr, &access)
                    self.format = format
                    if reopen || destination != self.destination { self.destination = destination; reopenAccessFile() }
                case .barrier(let done):
                    writeAll(&stdout, &stderr, &access)
                    done.signal()
                }
            }
            writeAll(&stdout, &stderr, &access)
            batch.removeAll(keepingCapacity: true)
        }
    }

    private func append(_ line: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    private func writeAll(_ stdout: inout [UInt8], _ stderr: inout [UInt8], _ access: inout [UInt8]) {
        Self.write(&stdout, to: 1)
        Self.write(&stderr, to: 2)
        switch destination {
        case .stdout: Self.write(&access, to: 1)
        case .stderr: Self.write(&access, to: 2)
        case .file: Self.write(&access, to: accessFile)
        case .off: access.removeAll(keepingCapacity: true)
        }
    }

    /// Opens (or reopens, after logrotate moved it) the access-log file.
    private func reopenAccessFile() {
        if accessFile >= 0 { _ = close(accessFile) }
        accessFile = -1
        guard case .file(let path) = destination else { return }
        accessFile = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if accessFile < 0 {
            var line = Array("breakwater: cannot open access log \(path): \(String(cString: strerror(errno)))\n".utf8)
            Self.write(&line, to: 2)
        }
    }

    /// Writes the whole buffer (retrying short writes and EINTR) and empties it.
    private static func write(_ buffer: inout [UInt8], to descriptor: Int32) {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard descriptor >= 0, !buffer.isEmpty else { return }
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

extension LogWriter.Item {
    /// Configuration and barriers are never dropped.
    fileprivate var isControl: Bool {
        switch self {
        case .configure, .barrier: true
        default: false
        }
    }
}

extension LogTimestamp {
    /// The wall clock now.
    static var now: LogTimestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return LogTimestamp(millisecondsSinceEpoch: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
