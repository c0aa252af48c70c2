// Whether the process takes new traffic: `/readyz` reads it. It turns on once the process has
// started (listening, its ready lines written, the schema's first outcome known: `markStarted`)
// and off at once when a stop signal arrives (before the listener closes, so a load balancer
// deregisters first).

import Synchronization

/// Set once started and when a stop signal arrives; read by the admin endpoints on any thread.
package final class Readiness: Sendable {
    private let started = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)

    package init() {}

    /// Whether the process has started and no stop has begun.
    package var isReady: Bool { started.load(ordering: .acquiring) && !isStopping }

    /// Whether a stop has begun.
    package var isStopping: Bool { stopping.load(ordering: .relaxed) }

    /// The process has started: its listeners serve and its ready lines are written.
    package func markStarted() {
        started.store(true, ordering: .releasing)
    }

    /// Marks the process as stopping; true the first time only.
    package func beginStopping() -> Bool {
        !stopping.exchange(true, ordering: .relaxed)
    }
}
