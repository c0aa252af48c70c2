// One event loop's request statistics. Written by that loop (and, rarely, by another loop
// delivering a coalesced answer), read by the admin endpoint: a lock that is almost never
// contended, per loop, summed on read; never a global lock on the hot path.

import BreakwaterCore
import Synchronization

/// The statistics of one event loop.
final class LoopStatistics: Sendable {
    private let value = Mutex(RequestStatistics())

    func record(_ update: (inout RequestStatistics) -> Void) {
        value.withLock { update(&$0) }
    }

    var snapshot: RequestStatistics { value.withLock { $0 } }
}
