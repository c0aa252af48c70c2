// The time a span records: Unix nanoseconds (OTLP's `time_unix_nano`), from the system's real-time clock.

import Glibc

/// Unix time in whole nanoseconds.
enum WallClockNanos {
    static var now: UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(max(0, time.tv_sec)) &* 1_000_000_000 &+ UInt64(max(0, time.tv_nsec))
    }
}
