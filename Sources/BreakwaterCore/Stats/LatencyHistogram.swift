// Latency distributions for the request statistics (README "Watching it: the admin endpoints"): one per event loop, recorded
// on the loop's own thread, copied and added together when the admin endpoint reads them.

/// Durations from 1 µs to 60 s in fixed log-linear buckets, read back within 0.8% of the truth.
///
/// The layout is HdrHistogram's with 64 sub-buckets per power of two: values below 128 µs each
/// have a bucket of their own, and above that every bucket is at most 1/64 of its lower bound
/// wide, so its midpoint is within 1/128 of any value in it. That is 1,331 counters (about 10 KiB),
/// where hdrhistogram-swift at 3 significant digits would keep some 20,000; each loop holds one
/// per operation name, up to 500 of them, so the smaller table is worth writing by hand.
///
/// Recording computes an index and increments a counter: it never allocates while the counts
/// are uniquely held. A copy taken for the admin endpoint shares them, so the loop's next record
/// copies the table once if that copy is still alive.
package struct LatencyHistogram: Sendable, Equatable {
    /// Sub-buckets per power of two, as a bit count: 2^6 = 64.
    private static let subBucketBits = 6
    /// Longer durations are recorded as this, in microseconds (60 s).
    fileprivate static let highestMicroseconds = 60_000_000
    private static let bucketCount = bucketIndex(ofMicroseconds: highestMicroseconds) + 1

    private var counts: [Int]
    /// How many durations were recorded.
    package private(set) var count = 0
    /// The total of the recorded durations to the nanosecond (before clamping to 60 s).
    package var sum: Duration { .nanoseconds(sumNanoseconds) }
    /// `sum` in nanoseconds: added to as a plain integer on every record.
    private var sumNanoseconds: Int64 = 0
    /// The smallest and largest recorded values, in whole microseconds; they make the 0th and
    /// 100th percentiles exact and keep every estimate inside the recorded range.
    private var lowestMicroseconds = Int.max
    private var highestRecordedMicroseconds = 0

    package init() {
        counts = Array(repeating: 0, count: Self.bucketCount)
    }

    /// Counts `duration`, truncated to whole microseconds and clamped to 0 … 60 s.
    package mutating func record(_ duration: Duration) {
        record(Sample(duration))
    }

    /// A duration with its whole microseconds worked out once, for recording in several
    /// histograms (a request's and its operation's): `Duration.components` divides 128-bit numbers.
    package struct Sample {
        /// The duration in whole nanoseconds, at least zero.
        let nanoseconds: Int64
        let micros: Int

        package init(_ duration: Duration) {
            let positive = max(duration, .zero)
            nanoseconds = LatencyHistogram.wholeNanoseconds(positive)
            micros = min(LatencyHistogram.wholeMicroseconds(positive), LatencyHistogram.highestMicroseconds)
        }

        /// A duration of `nanoseconds` (a negative one counts as zero): what a request's own
        /// timing hands in, without `Duration`'s 128-bit arithmetic.
        package init(nanoseconds: Int64) {
            self.nanoseconds = max(nanoseconds, 0)
            micros = Int(min(self.nanoseconds / 1000, Int64(LatencyHistogram.highestMicroseconds)))
        }
    }

    package mutating func record(_ sample: Sample) {
        let micros = sample.micros
        counts[Self.bucketIndex(ofMicroseconds: micros)] += 1
        count += 1
        sumNanoseconds = Self.saturatingSum(sumNanoseconds, sample.nanoseconds)
        lowestMicroseconds = min(lowestMicroseconds, micros)
        highestRecordedMicroseconds = max(highestRecordedMicroseconds, micros)
    }

    /// Adds `other`'s durations to these, as if every one had been recorded here.
    package mutating func merge(_ other: Self) {
        guard other.count > 0 else { return }
        for index in counts.indices {
            counts[index] += other.counts[index]
        }
        count += other.count
        sumNanoseconds = Self.saturatingSum(sumNanoseconds, other.sumNanoseconds)
        lowestMicroseconds = min(lowestMicroseconds, other.lowestMicroseconds)
        highestRecordedMicroseconds = max(highestRecordedMicroseconds, other.highestRecordedMicroseconds)
    }

    /// The nearest-rank `p`th percentile (`p` in 0 … 100), or zero when nothing was recorded.
    ///
    /// The first and last ranks are the exact lowest and highest recorded values. Any other rank,
    /// ⌈p/100 × count⌉, lies in the bucket found; its midpoint is returned, kept within those two.
    package func percentile(_ p: Double) -> Duration {
        guard count > 0 else { return .zero }
        let fraction = p.isNaN ? 0 : min(max(p, 0), 100) / 100
        let rank = max(1, Int((fraction * Double(count)).rounded(.up)))
        if rank == 1 { return .microseconds(lowestMicroseconds) }
        if rank >= count { return .microseconds(highestRecordedMicroseconds) }
        var seen = 0
        for index in counts.indices {
            seen += counts[index]
            guard seen >= rank else { continue }
            let (lower, width) = Self.bucketRange(ofIndex: index)
            let midpoint = lower + width / 2
            return .microseconds(min(max(midpoint, lowestMicroseconds), highestRecordedMicroseconds))
        }
        return .microseconds(highestRecordedMicroseconds)
    }

    /// For each bound, how many recorded durations are at most that long (Prometheus `le`).
    ///
    /// A bucket counts toward a bound only when all of it lies at or below the bound, so a bound
    /// that falls inside a bucket undercounts by that bucket's values (within 1/64 of the bound).
    package func cumulativeCounts(upperBounds: [Duration]) -> [Int] {
        upperBounds.map { bound in
            let limit = Self.wholeMicroseconds(max(bound, .zero))
            var total = 0
            for index in counts.indices {
                let (lower, width) = Self.bucketRange(ofIndex: index)
                guard lower + width - 1 <= limit else { break }
                total += counts[index]
            }
            return total
        }
    }

    /// The bucket of a value: the value itself below 64; above, 64 per power of two.
    private static func bucketIndex(ofMicroseconds value: Int) -> Int {
        guard value >= 1 << subBucketBits else { return value }
        let magnitude = Int.bitWidth - 1 - value.leadingZeroBitCount
        let shift = magnitude - subBucketBits
        return (shift + 1) << subBucketBits + (value >> shift) - (1 << subBucketBits)
    }

    /// The lowest value and the width of bucket `index`, the inverse of `bucketIndex`.
    private static func bucketRange(ofIndex index: Int) -> (lower: Int, width: Int) {
        guard index >= 1 << subBucketBits else { return (index, 1) }
        let shift = (index >> subBucketBits) - 1
        let subBucket = index & ((1 << subBucketBits) - 1) + (1 << subBucketBits)
        return (subBucket << shift, 1 << shift)
    }

    /// `a + b`, or the largest value when that overflows (about 292 years).
    package static func saturatingSum(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// `duration` in whole nanoseconds, truncated and saturating.
    fileprivate static func wholeNanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 - 1 else { return .max }
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// `duration` in whole microseconds, truncated and saturating.
    fileprivate static func wholeMicroseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64(Int.max / 1_000_000) - 1 else { return Int.max }
        return Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000)
    }
}
