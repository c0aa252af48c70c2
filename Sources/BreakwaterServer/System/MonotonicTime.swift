// A point on the system's monotonic clock as whole nanoseconds: the connection deadlines are
// plain integer arithmetic. `ContinuousClock.Instant` kept in optionals and tuples went through
// generic comparison witnesses and 128-bit `Duration` maths, some 850 instructions per request.

import Glibc

/// Nanoseconds since an arbitrary start (CLOCK_MONOTONIC, the clock of `ContinuousClock`).
struct MonotonicTime: Comparable {
    var nanoseconds: Int64

    static var now: MonotonicTime {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicTime(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    /// `duration` in whole nanoseconds (saturating at about 292 years).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    static func + (time: MonotonicTime, nanoseconds: Int64) -> MonotonicTime {
        let (sum, overflow) = time.nanoseconds.addingReportingOverflow(nanoseconds)
        return MonotonicTime(nanoseconds: overflow ? .max : sum)
    }

    /// The time from `other` to this as a `timeval`, zero if `other` is later (a timer's
    /// timeout, without `Duration`'s 128-bit arithmetic).
    func timeval(after other: MonotonicTime) -> timeval {
        let span = max(0, nanoseconds - other.nanoseconds)
        return Glibc.timeval(tv_sec: Int(span / 1_000_000_000), tv_usec: Int(span % 1_000_000_000 / 1000))
    }

    static func < (lhs: MonotonicTime, rhs: MonotonicTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
