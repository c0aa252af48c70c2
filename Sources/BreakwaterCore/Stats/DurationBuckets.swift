// One label set's duration histogram as `/metrics` shows it: a count per `le` bound, the sum and
// the count. Small (16 counters) where `LatencyHistogram` keeps 1,331, so each operation row can
// hold one per `cache` value for both the client and the origin durations.

/// Durations counted into the exposition's fixed `le` buckets (`StatsReport.durationBuckets`).
package struct DurationBuckets: Sendable, Equatable {
    /// The bounds in whole microseconds, as `StatsReport.durationBuckets` lists them.
    package static let boundMicroseconds = [
        500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000,
        5_000_000, 10_000_000,
    ]

    /// Per bound, the durations above the previous bound and at most this one; the last slot
    /// holds those above every bound (`+Inf`).
    private var counts = Array(repeating: 0, count: boundMicroseconds.count + 1)
    package private(set) var count = 0
    package var sum: Duration { .nanoseconds(sumNanoseconds) }
    /// `sum` in nanoseconds: added to as a plain integer on every record.
    private var sumNanoseconds: Int64 = 0

    package init() {}

    package mutating func record(_ sample: LatencyHistogram.Sample) {
        var slot = 0
        while slot < Self.boundMicroseconds.count && sample.micros > Self.boundMicroseconds[slot] { slot += 1 }
        counts[slot] += 1
        count += 1
        sumNanoseconds = LatencyHistogram.saturatingSum(sumNanoseconds, sample.nanoseconds)
    }

    /// For each bound in order, how many durations are at most that long (`+Inf` not included).
    package var cumulativeCounts: [Int] {
        var total = 0
        return counts.dropLast().map { total += $0; return total }
    }

    package mutating func merge(_ other: Self) {
        guard other.count > 0 else { return }
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
        sumNanoseconds = LatencyHistogram.saturatingSum(sumNanoseconds, other.sumNanoseconds)
    }
}

/// A `DurationBuckets` per `cache` label value (`hit`, `stale`, `miss`, `bypass`, `none`),
/// allocated at the first duration.
package struct CacheDurationBuckets: Sendable, Equatable {
    /// The `cache` label values, in the order the rows are kept and listed.
    package static let labels = ["hit", "stale", "miss", "bypass", "none"]

    private var rows: [DurationBuckets] = []

    package init() {}

    package mutating func record(_ sample: LatencyHistogram.Sample, cache: RequestStatistics.CacheResult?) {
        if rows.isEmpty { rows = Array(repeating: DurationBuckets(), count: Self.labels.count) }
        rows[Self.index(cache)].record(sample)
    }

    /// (cache label, buckets) for every label with at least one duration.
    package var recorded: [(cache: String, buckets: DurationBuckets)] {
        zip(Self.labels, rows).filter { $0.1.count > 0 }.map { (cache: $0.0, buckets: $0.1) }
    }

    package mutating func merge(_ other: Self) {
        guard !other.rows.isEmpty else { return }
        if rows.isEmpty { rows = other.rows; return }
        for index in rows.indices { rows[index].merge(other.rows[index]) }
    }

    private static func index(_ cache: RequestStatistics.CacheResult?) -> Int {
        switch cache {
        case .hit: 0
        case .stale: 1
        case .miss: 2
        case .bypass: 3
        case nil: 4
        }
    }
}
