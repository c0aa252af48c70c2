// When to ask the origin for its schema again (`origin.schema: auto`, docs/SCHEMA.md): every
// refresh interval while it answers, and soon after a failure, backing off, so that a proxy
// started before its origin learns the schema within seconds of the origin coming up.

/// The delay before the next introspection, from how the last ones went.
package struct IntrospectionSchedule: Sendable, Equatable {
    /// The wait after a successful introspection, and the longest after failures.
    package let refreshInterval: Duration
    /// The wait after the first failure; doubled after each further one.
    package let firstRetry: Duration
    private var failures = 0

    package init(refreshInterval: Duration = .seconds(300), firstRetry: Duration = .seconds(1)) {
        self.refreshInterval = refreshInterval
        self.firstRetry = firstRetry
    }

    /// Failures in a row since the last success.
    package var consecutiveFailures: Int { failures }

    /// The last introspection succeeded: ask again after the refresh interval.
    package mutating func succeeded() -> Duration {
        failures = 0
        return refreshInterval
    }

    /// The last introspection failed: ask again after 1 s, 2 s, 4 s ... up to the refresh interval.
    package mutating func failed() -> Duration {
        failures += 1
        // 2^(failures-1) times the first retry, computed without overflowing.
        var delay = firstRetry
        for _ in 1..<failures where delay < refreshInterval { delay = delay * 2 }
        return min(delay, refreshInterval)
    }
}
