// LatencyHistogram: percentiles within 1% of exact values on seeded random data, merging,
// exact counts and sums, and cumulative counts for Prometheus buckets.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct LatencyHistogramTests {
    /// Seeded sample sets, in whole microseconds, covering the range and a narrow cluster.
    enum Distribution: String, CaseIterable {
        case spreadOverWholeRange, clusteredAroundOneMillisecond, shortUnder200Microseconds

        func samples(count: Int, seed: UInt64) -> [Int] {
            var random = SplitMix64(seed: seed)
            return (0..<count).map { _ in sample(using: &random) }
        }

        private func sample(using random: inout SplitMix64) -> Int {
            switch self {
            case .spreadOverWholeRange:
                // A uniform power of two, then uniform within it: as many 2 µs as 20 s samples.
                let magnitude = Int.random(in: 0...25, using: &random)
                return min((1 << magnitude) + Int.random(in: 0..<(1 << magnitude), using: &random), 60_000_000)
            case .clusteredAroundOneMillisecond:
                return Int.random(in: 800...1_300, using: &random)
            case .shortUnder200Microseconds:
                return Int.random(in: 1...200, using: &random)
            }
        }
    }

    @Test(arguments: Distribution.allCases)
    func percentilesAreWithinOnePercentOfExactSortedValues(_ distribution: Distribution) {
        let samples = distribution.samples(count: 50_000, seed: 0x5EED)
        var histogram = LatencyHistogram()
        for micros in samples { histogram.record(.microseconds(micros)) }
        let sorted = samples.sorted()
        for p in [0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100] {
            let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
            let exact = Double(sorted[rank - 1])
            let (seconds, attoseconds) = histogram.percentile(p).components
            let estimate = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
            #expect(abs(estimate - exact) <= exact * 0.01, "p\(p): \(estimate) µs, exactly \(exact) µs")
        }
        #expect(histogram.percentile(0) == .microseconds(sorted.first!))
        #expect(histogram.percentile(100) == .microseconds(sorted.last!))
    }

    @Test func mergingEqualsRecordingEverythingInOne() {
        let samples = Distribution.spreadOverWholeRange.samples(count: 9_000, seed: 42)
        var all = LatencyHistogram()
        var parts = [LatencyHistogram](repeating: LatencyHistogram(), count: 3)
        for (position, micros) in samples.enumerated() {
            all.record(.microseconds(micros))
            parts[position % 3].record(.microseconds(micros))
        }
        var merged = LatencyHistogram()
        for part in parts { merged.merge(part) }
        #expect(merged == all)
        #expect(merged.percentile(99) == all.percentile(99))
        merged.merge(LatencyHistogram())
        #expect(merged == all)
    }

    @Test func countAndSumAreExact() {
        var histogram = LatencyHistogram()
        histogram.record(.nanoseconds(1_500_250))
        histogram.record(.milliseconds(2))
        histogram.record(.seconds(90))  // clamped to 60 s in the buckets, not in the sum
        #expect(histogram.count == 3)
        #expect(histogram.sum == .nanoseconds(1_500_250) + .milliseconds(2) + .seconds(90))
        #expect(histogram.percentile(100) == .seconds(60))
    }

    @Test func emptyHistogramReportsZeros() {
        let histogram = LatencyHistogram()
        #expect(histogram.count == 0)
        #expect(histogram.sum == .zero)
        #expect(histogram.percentile(50) == .zero)
        #expect(histogram.cumulativeCounts(upperBounds: [.milliseconds(1), .seconds(1)]) == [0, 0])
    }

    @Test func cumulativeCountsHoldValuesAtOrBelowEachBound() {
        var histogram = LatencyHistogram()
        for micros in [5, 100, 499, 990, 2_000, 40_000, 3_000_000, 70_000_000] {
            histogram.record(.microseconds(micros))
        }
        let bounds: [Duration] = [
            .microseconds(100), .microseconds(500), .milliseconds(1), .milliseconds(50), .seconds(10),
        ]
        #expect(histogram.cumulativeCounts(upperBounds: bounds) == [2, 3, 4, 6, 7])
    }
}
