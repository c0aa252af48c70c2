// SIGTERM, SIGINT and SIGHUP delivered as calls, off any event loop. The signals are blocked in
// every thread (`blockProcessSignals` runs first thing in main, so every thread started later
// inherits the mask) and one thread takes them with sigwait: none is ever lost or fatal, and
// no loop needs a libevent signal event.

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches the process signals Breakwater acts on while it is alive.
final class SignalWatcher: Sendable {
    enum Signal: Int32, CustomStringConvertible, CaseIterable, Sendable {
        case terminate
        case interrupt
        case hangup

        var number: Int32 {
            switch self {
            case .terminate: SIGTERM
            case .interrupt: SIGINT
            case .hangup: SIGHUP
            }
        }

        var description: String {
            switch self {
            case .terminate: "SIGTERM"
            case .interrupt: "SIGINT"
            case .hangup: "SIGHUP"
            }
        }
    }

    /// Blocks the watched signals in the calling thread, and so in every thread it starts later.
    /// Call before any other thread exists (first thing in `main`).
    static func blockProcessSignals() {
        var set = watchedSet
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    private static var watchedSet: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in Signal.allCases { sigaddset(&set, signal.number) }
        return set
    }

    /// Calls `handler` on a thread of its own for each signal that arrives.
    init(_ handler: @escaping @Sendable (Signal) -> Void) {
        Self.blockProcessSignals()
        let thread = Thread {
            var set = Self.watchedSet
            while true {
                var number: Int32 = 0
                guard sigwait(&set, &number) == 0, let signal = Signal.allCases.first(where: { $0.number == number })
                else { continue }
                handler(signal)
            }
        }
        thread.name = "breakwater-signals"
        thread.start()
    }
}
