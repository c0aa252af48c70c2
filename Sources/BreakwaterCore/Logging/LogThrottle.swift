// At most one log line per interval for an event that can repeat on every request (a forged value
// in Redis is read by every loop of every proxy): the first occurrence is logged at once, and the
// next line, an interval later at the earliest, says how many went unlogged in between.

/// Decides when a repeating event is logged again; a value, its time given by the caller.
package struct LogThrottle: Sendable {
    package let interval: Duration
    private var lastLogged: ContinuousClock.Instant?
    private var unlogged = 0

    package init(interval: Duration) {
        self.interval = interval
    }

    /// Records one occurrence at `now`; returns the number of occurrences the line logged now
    /// reports (this one and those not logged since the last line), or nil when no line is due.
    package mutating func record(at now: ContinuousClock.Instant) -> Int? {
        unlogged += 1
        if let lastLogged, now - lastLogged < interval { return nil }
        lastLogged = now
        defer { unlogged = 0 }
        return unlogged
    }
}
