// A deadline for a blocking socket exchange, so connect, write and read share one timeout.

/// A point in time after which a blocking operation gives up.
struct Deadline {
    private let instant: ContinuousClock.Instant

    init(after duration: Duration) {
        instant = ContinuousClock.now.advanced(by: duration)
    }

    /// Time left, zero once passed.
    var remaining: Duration {
        max(.zero, ContinuousClock.now.duration(to: instant))
    }

    var hasPassed: Bool { remaining == .zero }
}
