// Log-line times without formatting a date per line: the text up to the second
// ("2026-11-23T16:04:05.") is made once per second and reused; each line adds its milliseconds.

/// The RFC 3339 text of the current second, kept by whoever writes many lines (one per loop).
package struct LogTimeCache: Sendable {
    /// The second `prefix` is for, in seconds since the epoch; `Int64.min` before the first line.
    private var second = Int64.min
    /// `YYYY-MM-DDTHH:MM:SS.`: the first 20 bytes of `LogTimestamp.rfc3339`, in memory order.
    private var prefix: (UInt64, UInt64, UInt32) = (0, 0, 0)

    package init() {}

    /// Bytes `write` writes.
    package static let length = 24

    /// Writes `time` as `LogTimestamp.rfc3339` writes it (`...SS.mmmZ`), quotes not included.
    package mutating func write(_ time: LogTimestamp, to line: inout ByteCursor) {
        let (seconds, fraction) = time.millisecondsSinceEpoch.floorDividedBy(1000)
        if seconds != second {
            // Once a second: the exact text of that second's first millisecond, cut before the fraction.
            let text = Array(LogTimestamp(millisecondsSinceEpoch: seconds * 1000).rfc3339.utf8.prefix(20))
            withUnsafeMutableBytes(of: &prefix) { $0.copyBytes(from: text) }
            second = seconds
        }
        withUnsafeBytes(of: &prefix) { line.write($0.baseAddress!, count: 20) }
        let milliseconds = Int(fraction)
        line.write(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 100))
        line.write(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 10 % 10))
        line.write(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds % 10))
        line.write(UInt8(ascii: "Z"))
    }

    /// Appends `time` as `write` writes it (tests, one-off lines).
    package mutating func append(_ time: LogTimestamp, to out: inout [UInt8]) {
        var buffer = LogLineBuffer(capacity: Self.length)
        var line = ByteCursor(buffer.reserve(Self.length))
        write(time, to: &line)
        buffer.commit(upTo: line.position)
        buffer.withUnsafeBytes { out.append(contentsOf: $0) }
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
