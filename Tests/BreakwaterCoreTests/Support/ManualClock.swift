// A clock the flow tests move by hand: entries age without sleeping.

import BreakwaterCore
import Synchronization

/// Both of the flow's clocks, advanced together by `advance(by:)`.
final class ManualClock: FlowClock {
    private let offset = Mutex(Duration.zero)
    private let start = ContinuousClock.now
    private let wallStart = WallClockTime(millisecondsSinceEpoch: 1_800_000_000_000)

    var now: ContinuousClock.Instant { start + offset.withLock { $0 } }

    var wallNow: WallClockTime {
        let elapsed = offset.withLock { $0 }.components
        return WallClockTime(
            millisecondsSinceEpoch: wallStart.millisecondsSinceEpoch + elapsed.seconds * 1000
                + elapsed.attoseconds / 1_000_000_000_000_000)
    }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }
}
