// The real clocks the request flow reads in production (tests inject their own).

import BreakwaterCore
import Foundation

/// The monotonic clock and the system's wall clock.
struct SystemFlowClock: FlowClock {
    var now: ContinuousClock.Instant { .now }

    var wallNow: WallClockTime {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return WallClockTime(millisecondsSinceEpoch: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }
}
