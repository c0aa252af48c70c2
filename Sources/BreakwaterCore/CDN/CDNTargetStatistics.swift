// What `/stats` `cdn` and `breakwater_cdn_*` show per target (docs/CDN.md, "Watching it").

/// The figures of one target's queue.
package struct CDNTargetStatistics: Sendable, Equatable {
    /// Purges handed to the queue (before merging).
    package var purges = 0
    /// Calls the target took (2xx).
    package var sent = 0
    /// Calls given up: retries spent, or refused for good (4xx).
    package var failed = 0
    /// Attempts that failed and were tried again.
    package var retried = 0
    /// Times the queue passed `max_queue` (its entities became their types; with an admin purge
    /// among them, if that was not enough, one purge of everything).
    package var overflows = 0
    /// Types whose ids were replaced by the type's tag: in a purge naming more than
    /// `CDNPurgeQueue.entitiesPerType` of them, or in a queue past `max_queue`.
    package var collapses = 0
    /// Purges that never reached the target because the process stopped first.
    package var lost = 0
    /// Purges waiting: merged tags not yet sent, and those of calls waiting to be retried.
    package var queued = 0
    /// The last failure, if any attempt failed yet.
    package var lastError: String?
    /// How long answered calls took, sent to answered.
    package var latency = LatencyHistogram()
    package var durations = DurationBuckets()

    package init() {}

    mutating func recordDuration(_ duration: Duration) {
        let sample = LatencyHistogram.Sample(duration)
        latency.record(sample)
        durations.record(sample)
    }
}
