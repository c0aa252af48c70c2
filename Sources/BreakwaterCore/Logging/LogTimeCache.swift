// Log-line times without formatting a date per line: the text up to the second
// ("2026-11-23T16:04:05.") is made once per second and reused; each line adds its milliseconds.

/// The RFC 3339 text of the current second, kept by whoever writes many lines (one per loop).
package struct LogTimeCache: Sendable {
    /// The second `prefix` is for, in seconds since the epoch; `Int64.min` before the first line.
    private var second = Int64.min
    /// `YYYY-MM-DDTHH:MM:SS.`: the first 20 bytes of `LogTimestamp.rfc3339`.
    private var prefix: [UInt8] = []

    package init() {}

    /// Appends `time` as `LogTimestamp.rfc3339` writes it (`...SS.mmmZ`), quotes not included.
    package mutating func append(_ time: LogTimestamp, to out: inout [UInt8]) {
        let (seconds, milliseconds) = time.millisecondsSinceEpoch.floorDividedBy(1000)
        if seconds != second {
            // Once a second: the exact text of that second's first millisecond, cut before the fraction.
            prefix = Array(LogTimestamp(millisecondsSinceEpoch: seconds * 1000).rfc3339.utf8.dropLast(4))
            second = seconds
        }
        out.append(contentsOf: prefix)
        out.append(UInt8(ascii: "0") + UInt8(milliseconds / 100))
        out.append(UInt8(ascii: "0") + UInt8(milliseconds / 10 % 10))
        out.append(UInt8(ascii: "0") + UInt8(milliseconds % 10))
        out.append(UInt8(ascii: "Z"))
    }
}

extension Int64 {
    /// Quotient and remainder rounded towards minus infinity (times before 1970 stay in their second).
    fileprivate func floorDividedBy(_ divisor: Int64) -> (Int64, Int64) {
        let quotient = self / divisor
        let remainder = self % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
