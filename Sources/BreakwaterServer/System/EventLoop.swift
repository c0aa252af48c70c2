// One libevent event_base run by one thread, with a thread-safe way to hand it work.

import CLibevent
import Foundation
import Synchronization

/// An event loop: one `event_base`, the thread that runs it, and a queue of closures other
/// threads hand over through a wake-up event (libevent's pthread locking makes
/// `event_active` safe from any thread).
package final class EventLoop: @unchecked Sendable {
    /// The libevent base; only this loop's thread touches the objects made from it.
    let base: OpaquePointer
    /// Index of the loop in its group (0-based), for logs and per-loop structures.
    package let index: Int

    /// The `Date` header value; touched only on this loop's thread.
    nonisolated(unsafe) let httpDate = HTTPDate()

    private let wakeEvent: OpaquePointer
    /// Connections writing at the end of the current turn; touched only on this loop's thread.
    nonisolated(unsafe) let turnEndWrites: TurnEndWrites
    private let pending = Mutex<[@Sendable () -> Void]>([])
    /// The running thread's `pthread_self()`, 0 while not running: read on every reply.
    private let threadID = Atomic<UInt>(0)

    package init(index: Int) throws(SystemError) {
        EventLoop.enableThreadingOnce
        guard let config = event_config_new() else { throw SystemError("event_config_new", reason: "out of memory") }
        // Fewer epoll_ctl calls per request (measured 1.3x throughput, LIBEVENT.md).
        event_config_set_flag(config, Int32(EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST.rawValue))
        let made = event_base_new_with_config(config)
        event_config_free(config)
        guard let base = made else { throw SystemError("event_base_new", reason: "no usable backend (epoll)") }
        guard let wakeEvent = event_new(base, -1, Int16(EV_PERSIST), eventLoopWakeCallback, nil) else {
            event_base_free(base)
            throw SystemError("event_new", reason: "out of memory")
        }
        self.base = base
        self.wakeEvent = wakeEvent
        self.index = index
        turnEndWrites = TurnEndWrites(base: base)
        event_assign(
            wakeEvent, base, -1, Int16(EV_PERSIST), eventLoopWakeCallback,
            Unmanaged.passUnretained(self).toOpaque())
        event_add(wakeEvent, nil)
    }

    deinit {
        event_free(wakeEvent)
        turnEndWrites.free()
        event_base_free(base)
    }

    /// libevent's locks must exist before the first base is made.
    private static let enableThreadingOnce: Void = {
        evthread_use_pthreads()
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Whether the calling thread is the one running this loop.
    package var inEventLoop: Bool {
        let owner = threadID.load(ordering: .acquiring)
        return owner != 0 && pthread_equal(owner, pthread_self()) != 0
    }

    /// Runs `work` on this loop's thread: at once when already there, else at its next turn.
    package func execute(_ work: @escaping @Sendable () -> Void) {
        if inEventLoop {
            work()
        } else {
            enqueue(work)
        }
    }

    /// Runs `work` on this loop's thread at its next turn, never inline.
    package func enqueue(_ work: @escaping @Sendable () -> Void) {
        pending.withLock { $0.append(work) }
        event_active(wakeEvent, Int32(EV_READ), 0)
    }

    /// Runs `work` at this loop's next turn; for loop-owned (non-Sendable) state, so call it
    /// only on the loop's own thread.
    package func later(_ work: @escaping () -> Void) {
        let bound = LoopBound(work)
        enqueue { bound.value() }
    }

    /// Runs the loop on the calling thread until `stop()`; with `whileIdle`, also while it has no
    /// event to wait for (a loop fed only through `enqueue`: the wake-up event alone does not count).
    package func run(whileIdle: Bool = false) {
        threadID.store(pthread_self(), ordering: .releasing)
        event_base_loop(base, whileIdle ? EVLOOP_NO_EXIT_ON_EMPTY : 0)
        threadID.store(0, ordering: .releasing)
    }

    /// Makes `run()` return after the current turn; callable from any thread.
    package func stop() {
        let base = LoopBound(self.base)
        enqueue { event_base_loopbreak(base.value) }
    }

    /// Calls `work` once on this loop after `delay`; call on the loop's thread.
    package func schedule(after delay: Duration, _ work: @escaping () -> Void) {
        Timer.start(on: self, after: delay, work)
    }

    fileprivate func drainPending() {
        let work = pending.withLock { queue -> [@Sendable () -> Void] in
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for item in work { item() }
    }

    /// A one-shot timer that owns itself until it fires.
    private final class Timer {
        let work: () -> Void
        var event: OpaquePointer?

        init(work: @escaping () -> Void) { self.work = work }

        static func start(on loop: EventLoop, after delay: Duration, _ work: @escaping () -> Void) {
            let timer = Timer(work: work)
            let context = Unmanaged.passRetained(timer).toOpaque()
            guard let event = CLibevent_timer_new(loop.base, eventLoopTimerCallback, context) else {
                // Only an exhausted heap makes event_new fail; nothing sensible is left to do.
                preconditionFailure("event_new for a timer failed: out of memory")
            }
            timer.event = event
            var tv = timeval(duration: delay)
            event_add(timer.event, &tv)
        }

        func fire() {
            event_free(event)
            event = nil
            work()
        }
    }

    fileprivate static func fireTimer(_ context: UnsafeMutableRawPointer) {
        Unmanaged<Timer>.fromOpaque(context).takeRetainedValue().fire()
    }
}

private func eventLoopWakeCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<EventLoop>.fromOpaque(context).takeUnretainedValue().drainPending()
}

private func eventLoopTimerCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    EventLoop.fireTimer(context)
}

extension timeval {
    /// A timeval holding `duration`, rounded down to microseconds.
    init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
