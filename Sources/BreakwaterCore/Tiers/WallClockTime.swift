// A point in wall-clock time, so that an entry's "stored at" means the same on every host of a
// fleet (the monotonic clock of one process means nothing on another).

/// Milliseconds since the Unix epoch.
package struct WallClockTime: Sendable, Hashable, Comparable {
    package var millisecondsSinceEpoch: Int64

    package init(millisecondsSinceEpoch: Int64) {
        self.millisecondsSinceEpoch = millisecondsSinceEpoch
    }

    package static func < (lhs: WallClockTime, rhs: WallClockTime) -> Bool {
        lhs.millisecondsSinceEpoch < rhs.millisecondsSinceEpoch
    }

    /// The time from `earlier` to this one, never negative (clocks of two hosts may disagree).
    package func since(_ earlier: WallClockTime) -> Duration {
        .milliseconds(max(0, millisecondsSinceEpoch - earlier.millisecondsSinceEpoch))
    }
}
