// The one door to libc for the testing library: errno text, retries on EINTR, and time conversions.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum Posix {
    /// The readable text for an errno value, such as "Connection refused (111)".
    static func describe(errno code: Int32) -> String {
        "\(String(cString: strerror(code))) (\(code))"
    }

    /// Runs a system call again while it fails with EINTR; returns its result and the errno of a failure.
    static func retrying<Result: BinaryInteger>(_ call: () -> Result) -> (result: Result, errno: Int32) {
        while true {
            let result = call()
            if result >= 0 { return (result, 0) }
            let code = errno
            if code != EINTR { return (result, code) }
        }
    }

    /// Milliseconds in a duration, never negative, rounded up so a tiny wait is not a busy loop.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
        let millis = seconds.multipliedReportingOverflow(by: 1000)
        if millis.overflow { return Int.max }
        return Int(millis.partialValue) + Int((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// A `timeval` for SO_RCVTIMEO and SO_SNDTIMEO; at least one millisecond, since zero means "forever".
    static func timeval(_ duration: Duration) -> timeval {
        let millis = max(1, min(milliseconds(duration), Int(Int32.max)))
        #if canImport(Darwin)
        return Darwin.timeval(tv_sec: millis / 1000, tv_usec: Int32(millis % 1000) * 1000)
        #else
        return Glibc.timeval(tv_sec: millis / 1000, tv_usec: (millis % 1000) * 1000)
        #endif
    }
}
