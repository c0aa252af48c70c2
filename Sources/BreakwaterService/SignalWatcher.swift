// SIGTERM, SIGINT and SIGHUP delivered as calls, off any event loop: the default actions are
// turned off and Dispatch watches the signals, so no loop needs a libevent signal event.

import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches the process signals Breakwater acts on while it is alive.
final class SignalWatcher {
    enum Signal: Int32, CustomStringConvertible, CaseIterable {
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

    private let queue = DispatchQueue(label: "breakwater.signals")
    private var sources: [any DispatchSourceSignal] = []

    /// Calls `handler` on a private queue for each signal that arrives.
    init(_ handler: @escaping @Sendable (Signal) -> Void) {
        for watched in Signal.allCases {
            _ = signal(watched.number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: watched.number, queue: queue)
            source.setEventHandler { handler(watched) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}
