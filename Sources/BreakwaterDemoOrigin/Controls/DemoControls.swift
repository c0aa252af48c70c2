// The shared state behind the `/_demo/` endpoints: counters and fault knobs.

import BreakwaterCore
import GraphQL
import Synchronization

/// Counters and faults, read and written from every event loop and task.
final class DemoControls: Sendable {
    private let state = Mutex(State())

    private struct State {
        var counters = DemoCounters()
        var faults = DemoFaults()
    }

    init() {}

    /// The operation name of the proxy's schema introspection (`origin.schema: auto`).
    static let proxyIntrospection = "BreakwaterIntrospection"

    /// Counts an arriving GraphQL request and returns the faults to apply to it, in one step so
    /// a concurrent reset applies either to both or to neither. The proxy's own schema
    /// introspection is not counted (tests count what clients caused) but meets the faults, and
    /// `introspectionStatus` over them.
    func recordArrival(
        method: String, operationName: String?, query: String?, headers: HTTPHeaders
    ) -> DemoFaults {
        state.withLock { state in
            guard operationName == Self.proxyIntrospection else {
                state.counters.record(method: method, operationName: operationName, query: query, headers: headers)
                return state.faults
            }
            var faults = state.faults
            if let status = faults.introspectionStatus { faults.status = status }
            return faults
        }
    }

    var counters: DemoCounters { state.withLock { $0.counters } }

    var faults: DemoFaults { state.withLock { $0.faults } }

    /// Applies a faults body; on a bad body nothing changes.
    func updateFaults(_ body: Map) throws(DemoRequestError) {
        try state.withLock { state throws(DemoRequestError) in
            var faults = state.faults
            try faults.apply(body)
            state.faults = faults
        }
    }

    /// Zeroes the counters and clears every fault.
    func reset() {
        state.withLock { $0 = State() }
    }
}
