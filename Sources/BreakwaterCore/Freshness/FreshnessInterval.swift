// How sure the samples make a suggested TTL (docs/FRESHNESS.md, "How sure a suggestion is").
// The samples younger than T are uniform on [0, T], like the ages at which hits are served under
// a TTL of T, so the number of them that found a change is binomial, with the share of hits
// served stale at TTL T as its probability, whatever the change process. An exact binomial
// (Clopper-Pearson) bound at each sampled age says whether that share is shown to be within
// 1 - target (the interval's lower end) or shown to exceed it (its upper end). No resampling:
// the bound is the estimator's own, deterministic, and costs one pass over the sorted samples.

import Foundation

/// A 95 % interval for the longest TTL at which `target` of hits are fresh.
package struct FreshnessInterval: Sendable, Equatable {
    /// The oldest sampled age at which the samples show, at `sideConfidence`, that at least
    /// `target` of hits are fresh; 0 when no age shows it. The conservative suggestion.
    package var lowSeconds: Double
    /// The youngest sampled age at which the samples show, at `sideConfidence`, that fewer than
    /// `target` of hits are fresh; the oldest age sampled when none does (the evidence ends there).
    package var highSeconds: Double

    /// The interval's confidence: each end is a one-sided bound at `sideConfidence`.
    package static let confidence = 0.95
    /// The confidence of each end (97.5 %). Reading the lower end off the oldest age that passes
    /// tests many ages, which lets chance pass one past the truth more often than one test
    /// would: on simulated Poisson changes the lower end exceeded the truth 2 to 3 % of the time,
    /// within the 5 % that `confidence` allows.
    package static let sideConfidence = 0.975

    /// The interval from `observations` sorted by age, for `target` (0 < target < 1).
    package init(sortedObservations observations: [FreshnessEstimate.Observation], target: Double) {
        let allowed = 1 - target
        let tail = 1 - Self.sideConfidence
        var tally = BinomialTally(probability: allowed)
        var low = 0.0
        var high: Double?
        for observation in observations {
            tally.add(changed: observation.changed)
            // Clopper-Pearson: the upper bound on the stale share is within `allowed` exactly when
            // so few changes are unlikely (P(X <= k) <= tail) had the share been `allowed`.
            if tally.atMost <= tail { low = observation.age }
            if high == nil && tally.atLeast <= tail { high = observation.age }
        }
        lowSeconds = low
        highSeconds = high ?? observations.last?.age ?? 0
    }
}

/// P(X <= k) and P(X >= k) for X ~ Binomial(n, p), kept up to date as trials are added one at a
/// time (n grows by one, k by one on a success): O(1) a trial, with the probability of exactly k
/// held as a logarithm so that it does not underflow for thousands of trials.
private struct BinomialTally {
    let probability: Double
    private let logFailure: Double
    private let logOdds: Double
    private var trials = 0
    private var successes = 0
    private var logExactly = 0.0
    /// P(X <= k).
    private(set) var atMost = 1.0

    init(probability: Double) {
        self.probability = probability
        logFailure = log1p(-probability)
        logOdds = log(probability) - log1p(-probability)
    }

    /// P(X >= k).
    var atLeast: Double { min(1, max(0, 1 - atMost + exp(logExactly))) }

    mutating func add(changed: Bool) {
        // One more trial, k unchanged: P(X' <= k) = P(X <= k) - p P(X = k).
        let exactly = exp(logExactly)
        atMost -= probability * exactly
        trials += 1
        logExactly += log(Double(trials)) - log(Double(trials - successes)) + logFailure
        atMost = min(1, max(atMost, exp(logExactly)))
        guard changed else { return }
        // k + 1: P(X = k + 1) = P(X = k) (n - k) / (k + 1) p / (1 - p).
        logExactly += log(Double(trials - successes)) - log(Double(successes + 1)) + logOdds
        successes += 1
        atMost = min(1, atMost + exp(logExactly))
    }
}
