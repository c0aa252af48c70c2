// The access log of the proxy (README "Watching it: the admin endpoints") as the event loops see
// it: one ProxyLogBuffer per loop, which spells each answer's line as it is logged, the format (or
// off) as the last reload set it, and a way to wake the log writer thread (BreakwaterService's
// LogWriter), which takes the buffers' lines in batches and writes them to
// `logging.access_log`'s destination.

import BreakwaterCore
import Synchronization

/// Per-loop access-log buffers and their shared settings.
package final class ProxyAccessLog: Sendable {
    /// Bytes a loop may buffer before the writer takes them; beyond, lines are dropped and counted
    /// (a stalled destination costs lines, never a loop's time or unbounded memory).
    /// 8 MiB: about 28,000 lines of a hit (about 300 bytes each in text), 280 ms of a saturated
    /// loop, many of the writer's 10 ms batches.
    package static let maxBufferedBytes = 8 << 20

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

    /// Registers the writer: `wake` is called when a line arrives while the writer is parked.
    package func attach(writer wake: @escaping @Sendable () -> Void) {
        control.attach(wake)
    }

    /// Takes every loop's lines in loop order and hands each loop's bytes to `write`. Returns the
    /// lines taken and the lines dropped since the last take.
    package func take(_ write: (UnsafeRawBufferPointer) -> Void) -> (lines: Int, dropped: Int) {
        var lines = 0, dropped = 0
        for buffer in buffers {
            let counts = buffer.take(write)
            lines += counts.lines
            dropped += counts.dropped
        }
        if dropped > 0 { droppedTotal.add(dropped, ordering: .relaxed) }
        return (lines, dropped)
    }

    /// The writer found nothing to take and will sleep until woken: from now on the first line a
    /// loop writes wakes it. Returns false (stay awake) when a line arrived meanwhile.
    package func park() -> Bool {
        control.setParked(true)
        // A line written before the flag was seen must not wait for a wake that never comes:
        // each buffer's lock orders this check after the store, or its line before it.
        guard buffers.allSatisfy(\.isEmpty) else {
            control.setParked(false)
            return false
        }
        return true
    }
}

/// What every loop's buffer reads: the format (or off), and the writer to wake when it parked.
final class ProxyLogControl: Sendable {
    /// 0 off, 1 text, 2 JSON: read for every answer, set on reload.
    private let mode: Atomic<UInt8>
    private let writer = LockedCallback<@Sendable () -> Void>()
    /// The writer sleeps until woken (it found no line last time); false while it polls.
    private let parked = Atomic<Bool>(true)

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
        writer.set(wake)
    }

    /// Wakes the writer if it parked (it then polls on its own while lines keep coming).
    func wakeWriterIfParked() {
        guard parked.load(ordering: .relaxed), parked.exchange(false, ordering: .acquiringAndReleasing) else { return }
        writer.current?()
    }

    func setParked(_ value: Bool) {
        parked.store(value, ordering: .sequentiallyConsistent)
    }

    private static func mode(_ logging: Configuration.Logging) -> UInt8 {
        guard logging.accessLog != .off else { return 0 }
        return logging.format == .json ? 2 : 1
    }
}
