// How long a failed purge call waits before it goes again (docs/CDN.md, "Batching, retries and the queue bound"):
// exponential backoff, so a CDN that is down is not hammered, capped so a purge is never late
// by much more than the cap once it recovers.

/// Delays between attempts of one call.
package struct CDNRetrySchedule: Sendable, Equatable {
    /// Before the first retry.
    package var first: Duration
    /// No wait is longer than this.
    package var cap: Duration

    package init(first: Duration = .milliseconds(250), cap: Duration = .seconds(10)) {
        (self.first, self.cap) = (first, cap)
    }

    /// The wait after failed attempt `attempt` (1 = the first call): first, 2 x first, 4 x first, ...
    package func delay(after attempt: Int) -> Duration {
        var delay = first
        for _ in 1..<max(1, attempt) {
            delay = delay * 2
            if delay >= cap { return cap }
        }
        return min(delay, cap)
    }
}
