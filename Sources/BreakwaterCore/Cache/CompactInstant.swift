// An instant of the monotonic clock in 8 bytes, for what a cache keeps per entry or per slot
// (`ContinuousClock.Instant` takes 16).

/// A `ContinuousClock.Instant` as whole nanoseconds after a fixed instant of this process.
struct CompactInstant: Comparable {
    /// The instant counted from (any fixed instant will do; ±292 years either side fit).
    private static let epoch = ContinuousClock.now

    private let nanoseconds: Int64

    init(_ instant: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (instant - Self.epoch).components
        nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    var instant: ContinuousClock.Instant { Self.epoch + .nanoseconds(nanoseconds) }

    /// Whole milliseconds after the fixed instant, rounded down.
    var milliseconds: Int64 {
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0 ? quotient - 1 : quotient
    }

    static func < (lhs: CompactInstant, rhs: CompactInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
}
