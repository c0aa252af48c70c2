// The estimator against synthetic change processes whose truth is known (docs/FRESHNESS.md).

import Foundation
import Testing

@testable import BreakwaterCore
import BreakwaterFixtures

@Suite struct FreshnessEstimateTests {
    /// Current-status samples of exponential change times with mean `mean`, taken at ages
    /// uniform in [0, lifetime).
    static func exponentialSamples(
        count: Int, mean: Double, lifetime: Double, seed: UInt64
    ) -> [FreshnessEstimate.Observation] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let age = Double.random(in: 0..<lifetime, using: &random)
            let changeTime = -mean * log(1 - Double.random(in: 0..<1, using: &random))
            return (age: age, changed: changeTime < age)
        }
    }

    static func theoreticalTTL(mean: Double, target: Double) -> Double {
        FreshnessEstimate.exponentialTTL(meanSeconds: mean, target: target)
    }

    static func estimate(_ observations: [FreshnessEstimate.Observation], ttl: Double?, target: Double)
        -> FreshnessEstimate
    {
        FreshnessEstimate(
            observations: observations, samples: observations.count,
            changed: observations.count(where: \.changed), currentTTLSeconds: ttl, target: target)
    }

    @Test(arguments: [(5.0, 0.8, 4.0), (30.0, 0.8, 25.0), (5.0, 0.9, 3.0), (60.0, 0.95, 20.0)])
    func suggestedTTLMatchesTheExponentialTruth(mean: Double, target: Double, lifetime: Double) {
        let observations = Self.exponentialSamples(count: 4000, mean: mean, lifetime: lifetime, seed: 7)
        let estimate = Self.estimate(observations, ttl: lifetime, target: target)
        let truth = Self.theoreticalTTL(mean: mean, target: target)
        let suggested = try! #require(estimate.suggestedTTLSeconds)
        #expect(abs(suggested / truth - 1) < 0.15, "suggested \(suggested) s, theory \(truth) s")
        // The median of an exponential is m ln 2, its 10th percentile -m ln 0.9, when sampled.
        if let median = estimate.medianChangeSeconds {
            #expect(abs(median / (mean * log(2)) - 1) < 0.2)
        } else {
            #expect(mean * log(2) > lifetime * 0.9, "the median was within the ages sampled")
        }
        let p10 = try! #require(estimate.p10ChangeSeconds)
        #expect(abs(p10 / (-mean * log(0.9)) - 1) < 0.3, "p10 \(p10)")
    }

    /// The live test's tolerance (FreshnessTests: 45 %) against the estimator's own spread at
    /// its sample counts: 800 samples of GetMission's process (changes every 10 s on average,
    /// ages up to its 7 s TTL), over many seeds. Reading the TTL where the stale share crosses
    /// 1 - target, where that share rises slowly, spreads the estimate widely; no seed misses by
    /// 45 %, and the median miss stays small.
    @Test func theSpreadOverSeedsStaysWithinTheLiveTestsTolerance() {
        let truth = Self.theoreticalTTL(mean: 10, target: 0.8)
        let misses = (1...400).map { seed in
            let observations = Self.exponentialSamples(count: 800, mean: 10, lifetime: 7.05, seed: UInt64(seed))
            let suggested = Self.estimate(observations, ttl: 7, target: 0.8).suggestedTTLSeconds ?? 0
            return abs(suggested / truth - 1)
        }.sorted()
        #expect(misses[misses.count / 2] < 0.1, "median miss \(misses[misses.count / 2])")
        #expect(misses.last! < 0.45, "largest miss \(misses.last!)")
    }

    @Test func staleHitRatioAtTheCurrentTTLMatchesTheTruth() {
        let mean = 10.0
        let ttl = 6.0
        let observations = Self.exponentialSamples(count: 4000, mean: mean, lifetime: ttl, seed: 11)
        let estimate = Self.estimate(observations, ttl: ttl, target: 0.99)
        let truth = 1 - mean / ttl * (1 - exp(-ttl / mean))
        let stale = try! #require(estimate.staleHitRatio)
        #expect(abs(stale - truth) < 0.03, "stale \(stale), theory \(truth)")
        #expect(estimate.currentTTLSeconds == ttl)
    }

    @Test func censoredBeyondTheOldestAgeTheSuggestionStopsThere() {
        // Answers change every hour on average, entries live 10 s: no age shows a median, and
        // at 0.9 every sampled TTL keeps hits fresh, so the suggestion is the oldest age sampled.
        let observations = Self.exponentialSamples(count: 1000, mean: 3600, lifetime: 10, seed: 3)
        let estimate = Self.estimate(observations, ttl: 10, target: 0.9)
        let oldest = observations.map(\.age).max()!
        #expect(estimate.medianChangeSeconds == nil)
        #expect(estimate.suggestedTTLSeconds == oldest)
        #expect(estimate.suggestedTTLSeconds! < 10)
    }

    @Test func fewSamplesSayNothingYet() {
        let observations = Self.exponentialSamples(
            count: FreshnessEstimate.minimumSamples - 1, mean: 5, lifetime: 5, seed: 5)
        let estimate = Self.estimate(observations, ttl: 5, target: 0.9)
        #expect(estimate.samples == FreshnessEstimate.minimumSamples - 1)
        #expect(estimate.changed == observations.count(where: \.changed))
        #expect(estimate.medianChangeSeconds == nil)
        #expect(estimate.p10ChangeSeconds == nil)
        #expect(estimate.staleHitRatio == nil)
        #expect(estimate.suggestedTTLSeconds == nil)
        #expect(estimate.currentTTLSeconds == 5)
    }

    @Test func noChangeSuggestsTheLongestAgeSampled() {
        var random = SplitMix64(seed: 9)
        let observations = (0..<200).map { _ in (age: Double.random(in: 0..<30, using: &random), changed: false) }
        let estimate = Self.estimate(observations, ttl: 30, target: 0.99)
        #expect(estimate.changed == 0)
        #expect(estimate.suggestedTTLSeconds == observations.map(\.age).max())
        #expect(estimate.staleHitRatio == 0)
        #expect(estimate.medianChangeSeconds == nil)
        #expect(estimate.p10ChangeSeconds == nil)
    }

    @Test func answersThatAlwaysChangeSuggestNotCaching() {
        let observations = (1...150).map { (age: Double($0) / 10, changed: true) }
        let estimate = Self.estimate(observations, ttl: 15, target: 0.9)
        #expect(estimate.suggestedTTLSeconds == 0)
        #expect(estimate.staleHitRatio == 1)
        #expect(estimate.p10ChangeSeconds == 0.1)
    }

    @Test func isotonicFitPoolsAdjacentViolators() {
        let third: Double = 1.0 / 3
        let expected: [Double] = [0, third, third, third, 1, 1]
        #expect(FreshnessEstimate.isotonicFit([0, 1, 0, 0, 1, 1]) == expected)
        #expect(FreshnessEstimate.isotonicFit([1, 0]) == [0.5, 0.5])
        #expect(FreshnessEstimate.isotonicFit([0, 0, 1]) == [0, 0, 1])
        #expect(FreshnessEstimate.isotonicFit([]) == [])
    }
}
