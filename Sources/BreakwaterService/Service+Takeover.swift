// Restarts and upgrades without a refused connection (docs/OPERATING.md, "Restarts and
// upgrades"): the running process offers its listening sockets on `admin.handover_socket`; a
// new one started with `run --takeover` receives them, serves them, and once ready tells the old
// one, which stops accepting and drains as on SIGTERM. The snapshot hooks run on either side.

import BreakwaterCore
import BreakwaterServer
import Foundation
import Logging
import Synchronization

extension Service {
    /// Offers `stack`'s listening sockets on `listener` (`admin.handover_socket`, made before
    /// anything was bound); a takeover runs `beforeHandover`, then stops this process as on
    /// SIGTERM once the new one is ready. Close the listener when `run` returns.
    package func offerHandover(on listener: HandoverListener, of stack: ProxyStack) {
        let sockets = InheritedListeners(
            graphql: stack.proxyServer.listeningDescriptors, admin: stack.adminServer.listeningDescriptors)
        listener.serve(sockets: sockets) { [weak self] in
            self?.beforeHandover?()
        } handedOver: { [weak self] pid in
            self?.stopAfterHandover(to: pid)
        }
    }

    /// Finishes a takeover once every loop runs (the received sockets are served, the snapshot the
    /// previous process wrote is loaded): tells the previous process, and when it acknowledged, makes
    /// the handover socket at `handoverPath` ("" = none) for the next takeover. `offered`
    /// gets that listener, to be closed when `run` returns.
    package func completeTakeover(
        _ takeover: Takeover, stack: ProxyStack, handoverPath: String, logger: Logger,
        offered: @escaping @Sendable (HandoverListener) -> Void
    ) {
        let waiting = Countdown(group.loops.count)
        for loop in group.loops {
            loop.execute { [self] in
                guard waiting.tick() else { return }
                let thread = Thread { [self] in
                    logger.notice(
                        "takeover: serving on inherited sockets from pid \(takeover.previousPID)",
                        metadata: ["takeover.pid": "\(takeover.previousPID)"])
                    var acknowledged = true
                    do {
                        try takeover.confirmReady()
                    } catch {
                        acknowledged = false
                        logger.warning("takeover: \(error); serving on")
                    }
                    guard !handoverPath.isEmpty else { return }
                    do {
                        // Its previous owner has let go of the path once it acknowledged.
                        let replacing = acknowledged && takeover.cameThrough(handoverPath)
                        let listener = try HandoverListener(path: handoverPath, replacingLive: replacing, logger: logger)
                        offerHandover(on: listener, of: stack)
                        offered(listener)
                    } catch {
                        logger.error("takeover: no handover socket for the next one: \(error)")
                    }
                }
                thread.name = "breakwater-takeover"
                thread.start()
            }
        }
    }
}

/// Counts the loops that have run once; the last one to tick hears true.
private final class Countdown: Sendable {
    private let remaining: Atomic<Int>

    init(_ count: Int) { remaining = Atomic(count) }

    func tick() -> Bool { remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }
}
