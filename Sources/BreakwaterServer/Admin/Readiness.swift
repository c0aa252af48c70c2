// Whether the process takes new traffic: `/readyz` reads it, a stop signal clears it at once
// (before the listener closes, so a load balancer deregisters first).

import Synchronization

/// Set when a stop signal arrives; read by the admin endpoints on any thread.
package final class Readiness: Sendable {
    private let stopping = Atomic<Bool>(false)

    package init() {}

    /// True until a stop begins.
    package var isReady: Bool { !stopping.load(ordering: .relaxed) }

    /// Marks the process as stopping; true the first time only.
    package func beginStopping() -> Bool {
        !stopping.exchange(true, ordering: .relaxed)
    }
}
