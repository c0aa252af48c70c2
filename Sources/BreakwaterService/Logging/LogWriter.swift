// The one thread that writes log lines. Event loops never wait for a terminal, a pipe or a disk:
// a swift-log record is appended to a bounded queue under a short lock (rendered and written
// here, in order), and access-log lines, spelled by the loops into per-loop buffers
// (ProxyAccessLog), are taken here whole, one write per loop every `accessBatchInterval` while
// lines keep coming (the writer polls then, and parks when a take finds nothing: the first line
// after wakes it). A full queue or buffer drops lines and says how many, rather than block.

import BreakwaterCore
import BreakwaterServer
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
        /// A line already rendered (console lines), to stdout.
        case console(String)
        case configure(Configuration.LogFormat, Configuration.AccessLogDestination, reopen: Bool)
        /// Signals `flush` once everything before it is written.
        case barrier(DispatchSemaphore)
    }

    /// Records waiting beyond this are dropped (and counted).
    static let capacity = 65_536
    /// How long access-log lines gather in the loops' buffers once one arrives: one write (and one
    /// buffer swap per loop) per interval, however many requests. The loops have spelled the
    /// lines, so a batch costs only its `write`; on the serving CPU a 100 ms batch's write held the
    /// loop up for a millisecond or more, and p99 with the log on was 2.5 times nginx's; at 10 ms
    /// it is below nginx's (BENCHMARKS.md, "Access log cost").
    static let accessBatchInterval = Duration.milliseconds(10)

    private let condition = NSCondition()
    private var pending: [Item] = []  // guarded by condition
    private var dropped = 0  // guarded by condition
    /// A loop wrote a line while this thread was parked.
    private var accessWaiting = false  // guarded by condition
    private var accessLog: ProxyAccessLog?  // guarded by condition

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

    /// Takes `log`'s lines from now on; its loops wake this thread when lines arrive while it is parked.
    func attach(_ log: ProxyAccessLog) {
        condition.lock()
        accessLog = log
        condition.unlock()
        log.attach { [weak self] in self?.accessLinesArrived() }
    }

    /// Called by a loop (once per idle spell, not per line): lines are waiting in its buffer.
    private func accessLinesArrived() {
        condition.lock()
        accessWaiting = true
        condition.signal()
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
        Self.nameThread("breakwater-log")
        var batch: [Item] = []
        var stdout: [UInt8] = [], stderr: [UInt8] = []
        // The last take found access lines: take again after the interval, unwoken.
        var polling = false
        while true {
            condition.lock()
            if !polling {
                while pending.isEmpty && !accessWaiting { condition.wait() }
            }
            let onlyAccessLines = pending.isEmpty
            condition.unlock()
            // Access lines alone: let the batch grow for a moment (records and flushes do not wait,
            // and end the moment: a flush at exit is not held back by it).
            if onlyAccessLines { gatherAccessLines() }
            condition.lock()
            // Cleared before the buffers are taken: a line appended after the take wakes us again.
            accessWaiting = false
            swap(&batch, &pending)
            let lost = dropped
            dropped = 0
            let accessLog = self.accessLog
            condition.unlock()
            if lost > 0 { warnDropped(lost, what: "log records", to: &stderr) }
            for item in batch {
                switch item {
                case .record(let record, let toStdout):
                    if toStdout {
                        append(LogLineFormat.line(record, format: format), to: &stdout)
                    } else {
                        append(LogLineFormat.line(record, format: format), to: &stderr)
                    }
                case .console(let line):
                    append(line, to: &stdout)
                case .configure(let format, let destination, let reopen):
                    writeAccessLines(accessLog, &stdout, &stderr)
                    self.format = format
                    if reopen || destination != self.destination {
                        self.destination = destination
                        reopenAccessFile(warningTo: &stderr)
                    }
                case .barrier(let done):
                    writeAccessLines(accessLog, &stdout, &stderr)
                    done.signal()
                }
            }
            let taken = writeAccessLines(accessLog, &stdout, &stderr)
            batch.removeAll(keepingCapacity: true)
            polling = taken > 0 || accessLog?.park() == false
        }
    }

    /// Writes the records so far, then takes every loop's access-log lines and writes them (one
    /// write per loop); returns how many lines it took.
    @discardableResult
    private func writeAccessLines(_ accessLog: ProxyAccessLog?, _ stdout: inout [UInt8], _ stderr: inout [UInt8]) -> Int {
        Self.write(&stdout, to: 1)
        Self.write(&stderr, to: 2)
        guard let accessLog else { return 0 }
        let descriptor: Int32
        switch destination {
        case .stdout: descriptor = 1
        case .stderr: descriptor = 2
        case .file: descriptor = accessFile
        case .off: descriptor = -1
        }
        let (lines, lost) = accessLog.take { Self.write($0, to: descriptor) }
        if lost > 0 {
            warnDropped(lost, what: "access-log lines", to: &stderr)
            Self.write(&stderr, to: 2)
        }
        return lines
    }

    private func warnDropped(_ count: Int, what: String, to stderr: inout [UInt8]) {
        let note = LogLineFormat.Record(
            time: .now, level: "warning", label: "breakwater",
            message: "log writer fell behind: \(what) dropped", fields: [("dropped", LogValue(count))])
        append(LogLineFormat.line(note, format: format), to: &stderr)
    }

    /// Names the calling thread (for `top -H`, and for scripts/access-log-cost.sh, which reads
    /// this thread's CPU time); Linux only, quietly nothing elsewhere.
    private static func nameThread(_ name: String) {
        let file = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard file >= 0 else { return }
        var bytes = Array(name.utf8)
        write(&bytes, to: file)
        _ = close(file)
    }

    /// Waits `accessBatchInterval`, or until a record, a flush or a change is queued.
    private func gatherAccessLines() {
        let (seconds, attoseconds) = Self.accessBatchInterval.components
        let until = Date(timeIntervalSinceNow: Double(seconds) + Double(attoseconds) / 1e18)
        condition.lock()
        while pending.isEmpty && condition.wait(until: until) {}
        condition.unlock()
    }

    private func append(_ line: String, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: line.utf8)
        buffer.append(UInt8(ascii: "\n"))
    }

    /// Opens (or reopens, after logrotate moved it) the access-log file; a failure is an error
    /// record in the log's format (start-up and reload check the file first, so this is the file
    /// vanishing between the check and the open).
    private func reopenAccessFile(warningTo stderr: inout [UInt8]) {
        if accessFile >= 0 { _ = close(accessFile) }
        accessFile = -1
        guard case .file(let path) = destination else { return }
        accessFile = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if accessFile < 0 {
            let note = LogLineFormat.Record(
                time: .now, level: "error", label: "breakwater", message: "cannot open the access log",
                fields: [("path", .string(path)), ("error", .string(String(cString: strerror(errno))))])
            append(LogLineFormat.line(note, format: format), to: &stderr)
        }
    }

    /// Writes the whole buffer (retrying short writes and EINTR) and empties it.
    private static func write(_ buffer: inout [UInt8], to descriptor: Int32) {
        defer { buffer.removeAll(keepingCapacity: true) }
        buffer.withUnsafeBytes { write($0, to: descriptor) }
    }

    /// Writes all of `bytes` (retrying short writes and EINTR); a failed write loses them.
    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) {
        guard descriptor >= 0, !bytes.isEmpty else { return }
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

extension LogWriter.Item {
    /// Configuration and barriers are never dropped.
    fileprivate var isControl: Bool {
        switch self {
        case .configure, .barrier: true
        default: false
        }
    }
}
