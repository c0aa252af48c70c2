// Durations as written in config.yaml: "500ms", "30s", "5m", "24h", "1.5s", "0".

extension Duration {
    /// Parses a non-negative number followed by `ms`, `s`, `m` or `h` (a bare "0" needs no unit);
    /// nil for anything else, negatives and values beyond ±292 years included.
    ///
    /// A bare number other than 0 is refused: whether "30" means seconds or milliseconds is exactly
    /// the guess a config file must not leave to the reader.
    public init?(parsing text: String) {
        let trimmed = text.trimmingWhitespace()
        if trimmed == "0" {
            self = .zero
            return
        }
        let number = trimmed.prefix(while: { ($0.isASCII && $0.isNumber) || $0 == "." })
        let nanosecondsPerUnit: Int64
        switch trimmed.dropFirst(number.count) {
        case "ms": nanosecondsPerUnit = 1_000_000
        case "s": nanosecondsPerUnit = 1_000_000_000
        case "m": nanosecondsPerUnit = 60_000_000_000
        case "h": nanosecondsPerUnit = 3_600_000_000_000
        default: return nil
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let whole = Int64(parts[0]) else { return nil }
        var (nanoseconds, overflow) = whole.multipliedReportingOverflow(by: nanosecondsPerUnit)
        guard !overflow else { return nil }
        if parts.count == 2 {
            // At most nine fraction digits: a nanosecond is the finest step any unit can need.
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 9, let fraction = Int64(digits) else { return nil }
            var scale: Int64 = 1
            for _ in 0..<digits.count { scale *= 10 }
            let (part, partOverflow) = fraction.multipliedReportingOverflow(by: nanosecondsPerUnit)
            guard !partOverflow else { return nil }
            (nanoseconds, overflow) = nanoseconds.addingReportingOverflow(part / scale)
            guard !overflow else { return nil }
        }
        self = .nanoseconds(nanoseconds)
    }

    /// The shortest whole-number form that `init(parsing:)` reads back: "24h", "5m", "30s",
    /// "500ms", "0s"; sub-millisecond values keep a fraction ("0.25ms").
    public var configText: String {
        if self < .zero { return "-" + (.zero - self).configText }
        let (seconds, attoseconds) = components
        if attoseconds == 0 {
            if seconds == 0 { return "0s" }
            if seconds % 3600 == 0 { return "\(seconds / 3600)h" }
            if seconds % 60 == 0 { return "\(seconds / 60)m" }
            return "\(seconds)s"
        }
        let attosecondsPerMillisecond: Int64 = 1_000_000_000_000_000
        let milliseconds = seconds * 1000 + attoseconds / attosecondsPerMillisecond
        let remainder = attoseconds % attosecondsPerMillisecond
        guard remainder != 0 else { return "\(milliseconds)ms" }
        // Nanosecond precision: the parser reads no finer, so finer digits would not round-trip.
        let nanoseconds = remainder / 1_000_000_000
        var fraction = String(nanoseconds)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(milliseconds)ms" : "\(milliseconds).\(fraction)ms"
    }
}
