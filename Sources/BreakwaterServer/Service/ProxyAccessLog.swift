// The access log of the proxy (SPEC section 6) as the event loops see it: one ProxyLogBuffer per
// loop, the format (or off) as the last reload set it, and a way to wake the log writer thread
// (BreakwaterService's LogWriter), which takes the buffers' lines in batches and writes them to
// `logging.access_log`'s destination.

import BreakwaterCore
import Synchronization

/// Per-loop access-log buffers and their shared settings.
package final class ProxyAccessLog: Sendable {
    /// Bytes a loop may buffer before the writer takes them; beyond, lines are dropped and counted
    /// (a stalled destination costs lines, never a loop's time or unbounded memory).
    package static let maxBufferedBytes = 1 << 20

    /// One per loop, in loop order.
    package let buffers: [ProxyLogBuffer]
    private let control: ProxyLogControl
    /// Lines dropped since the start, over every loop (counted when the writer takes them).
    private let droppedTotal = Atomic<Int>(0)

    /// One buffer per loop of `loopCount`, logging as `logging` says.
    package init(loopCount: Int, logging: Configuration.Logging) {
        let control = ProxyLogControl(logging)
        self.control = control
        buffers = (0..<loopCount).map { _ in ProxyLogBuffer(control: control) }
    }

    /// Takes reloaded settings: the format, or off (the destination is the writer's business).
    package func apply(_ logging: Configuration.Logging) {
        control.apply(logging)
    }

    /// Lines dropped so far because the writer fell behind.
    package var droppedLines: Int { droppedTotal.load(ordering: .relaxed) }

    /// Registers the writer: `wake` is called when a buffer gets its first line since the last take.
    package func attach(writer wake: @escaping @Sendable () -> Void) {
        control.attach(wake)
    }

    /// Takes every loop's lines in loop order: `spares` (one per loop, grown as needed) then hold
    /// them. Returns the lines dropped since the last take.
    package func take(into spares: inout [[UInt8]]) -> Int {
        while spares.count < buffers.count { spares.append([]) }
        var dropped = 0
        for (index, buffer) in buffers.enumerated() {
            dropped += buffer.take(into: &spares[index]).dropped
        }
        if dropped > 0 { droppedTotal.add(dropped, ordering: .relaxed) }
        return dropped
    }
}

/// What every loop's buffer reads: the format (or off) and the writer to wake.
final class ProxyLogControl: Sendable {
    /// 0 off, 1 text, 2 JSON: read for every answer, set on reload.
    private let mode: Atomic<UInt8>
    private let writer = Mutex<(@Sendable () -> Void)?>(nil)

    init(_ logging: Configuration.Logging) {
        mode = Atomic(Self.mode(logging))
    }

    func apply(_ logging: Configuration.Logging) {
        mode.store(Self.mode(logging), ordering: .relaxed)
    }

    /// The format lines are written in; nil when the access log is off.
    var format: Configuration.LogFormat? {
        switch mode.load(ordering: .relaxed) {
        case 1: .text
        case 2: .json
        default: nil
        }
    }

    func attach(_ wake: @escaping @Sendable () -> Void) {
        writer.withLock { $0 = wake }
    }

    func wakeWriter() {
        writer.withLock { $0 }?()
    }

    private static func mode(_ logging: Configuration.Logging) -> UInt8 {
        guard logging.accessLog != .off else { return 0 }
        return logging.format == .json ? 2 : 1
    }
}
