// The 95 % interval of a suggested TTL (docs/FRESHNESS.md, "How sure a suggestion is"): exact
// binomial bounds, checked against hand-computed cases and, over many seeds, against Poisson
// changes whose truth is known.

import Foundation
import Testing

@testable import BreakwaterCore
import BreakwaterFixtures

@Suite struct FreshnessIntervalTests {
    static func interval(_ observations: [FreshnessEstimate.Observation], target: Double) -> FreshnessInterval {
        FreshnessInterval(sortedObservations: observations.sorted { $0.age < $1.age }, target: target)
    }

    /// With no change seen, 0.99 is shown at 97.5 % once 0.99^n <= 0.025: n = 368, not 367.
    @Test func noChangeShowsTheTargetFromExactlyTheSampleCountTheBinomialNeeds() {
        let unchanged = (1...368).map { (age: Double($0) / 100, changed: false) }
        #expect(Self.interval(Array(unchanged.prefix(367)), target: 0.99).lowSeconds == 0)
        let shown = Self.interval(unchanged, target: 0.99)
        #expect(shown.lowSeconds == 3.68)
        #expect(shown.highSeconds == 3.68, "no age shows too many changes: the evidence ends at the oldest")
    }

    /// Computed by hand (scipy's binomial): ages 0.1 s apart, every answer older than 10 s changed;
    /// at target 0.9 the stale share is shown within 10 % up to 10.4 s and beyond it from 12 s.
    @Test func bothEndsMatchTheExactBinomialBounds() {
        let observations = (1...200).map { (age: Double($0) / 10, changed: $0 > 100) }
        let interval = Self.interval(observations, target: 0.9)
        #expect(abs(interval.lowSeconds - 10.4) < 1e-9, "\(interval)")
        #expect(abs(interval.highSeconds - 12.0) < 1e-9, "\(interval)")
    }

    /// The user-facing promise: at target 0.99 the suggestion is at most the TTL that keeps 99 %
    /// of hits fresh, at 95 % confidence. Over 200 runs of Poisson changes (mean 30 s, entries
    /// living 0.8 s, 8192 samples) it exceeds the truth in fewer than 5 % of runs, and it is not
    /// uselessly low: half of the runs reach 60 % of the truth.
    @Test func atTargetNinetyNineTheLowerEndExceedsThePoissonTruthInFewerThanOneRunInTwenty() {
        let mean = 30.0
        let truth = FreshnessEstimate.exponentialTTL(meanSeconds: mean, target: 0.99)
        let ratios = (1...200).map { seed in
            let observations = FreshnessEstimateTests.exponentialSamples(
                count: 8192, mean: mean, lifetime: 0.8, seed: UInt64(seed))
            return Self.interval(observations, target: 0.99).lowSeconds / truth
        }.sorted()
        let over = ratios.count { $0 > 1 }
        #expect(over < 10, "the lower end exceeded the truth in \(over) of 200 runs")
        #expect(ratios[100] >= 0.6, "median \(ratios[100]) of the truth")
        #expect(ratios[2] >= 0.3, "2nd smallest \(ratios[2]) of the truth")
    }

    /// The other end, for the same runs: the truth lies below the upper end in 95 % of them.
    @Test func theUpperEndIsBelowThePoissonTruthInFewerThanOneRunInTwenty() {
        let mean = 30.0
        let truth = FreshnessEstimate.exponentialTTL(meanSeconds: mean, target: 0.99)
        let under = (1...200).count { seed in
            let observations = FreshnessEstimateTests.exponentialSamples(
                count: 8192, mean: mean, lifetime: 0.8, seed: UInt64(seed))
            return Self.interval(observations, target: 0.99).highSeconds < truth
        }
        #expect(under < 10, "the upper end was below the truth in \(under) of 200 runs")
    }
}

extension FreshnessIntervalTests {
    /// P(X <= k) for X ~ Binomial(n, p), summed term by term (the slow way the tally replaces).
    static func binomialAtMost(_ k: Int, _ n: Int, _ p: Double) -> Double {
        var sum = 0.0
        for i in 0...k {
            let ways: Double = lgamma(Double(n + 1)) - lgamma(Double(i + 1)) - lgamma(Double(n - i + 1))
            let chance: Double = Double(i) * log(p) + Double(n - i) * log1p(-p)
            sum += exp(ways + chance)
        }
        return sum
    }

    /// The lower end is the oldest age whose exact bound passes, computed the slow way.
    @Test(arguments: [0.99, 0.9, 0.8])
    func theLowerEndIsWhereTheExactBinomialBoundLastPasses(target: Double) {
        var random = SplitMix64(seed: 21)
        for run in 0..<40 {
            let count = 100 + random.next(below: 500)
            let rate = Double(random.next(below: 100)) / 1000
            var observations: [FreshnessEstimate.Observation] = []
            for index in 0..<count {
                let chance = rate * Double(index) / Double(count) * 3
                observations.append((age: Double(index) / 10, changed: Double.random(in: 0..<1, using: &random) < chance))
            }
            var expected = 0.0
            var changes = 0
            for (index, observation) in observations.enumerated() {
                if observation.changed { changes += 1 }
                if Self.binomialAtMost(changes, index + 1, 1 - target) <= 0.025 { expected = observation.age }
            }
            let interval = Self.interval(observations, target: target)
            #expect(abs(interval.lowSeconds - expected) < 1e-9, "run \(run): \(interval.lowSeconds) vs \(expected)")
        }
    }
}
