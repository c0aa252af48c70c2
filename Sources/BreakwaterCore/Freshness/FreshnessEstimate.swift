// What the samples of one operation say (docs/FRESHNESS.md, "The estimate"). Each sample is
// "current status" data: the answer had changed by its age, or not; the time of the change is
// never seen. The estimator is the nonparametric maximum-likelihood estimate of the distribution
// F of the time until an answer changes, which for current-status data is the isotonic
// (non-decreasing) regression of `changed` on age, computed by pool-adjacent-violators. It
// assumes no shape (no exponential, no schedule), only that an answer older by more time is
// no less likely to have changed.
//
// Because sampling ages are uniform within an entry's lifetime, the samples younger than T are
// uniform on [0, T], like the ages of hits served under a TTL of T: the share of hits served
// stale at TTL T is the mean of F over those samples, which the fitted values estimate (the
// fit keeps each pooled block's sum, so this mean is the raw share changed at block edges, and
// it never decreases with T). The suggested TTL is conservative: the lower end of a 95 % interval
// for the longest TTL at which that share stays within 1 - target (FreshnessInterval), and one
// below `minimumUsefulTTLSeconds` reads "too fast to cache", never a TTL.

import Foundation

/// The estimate for one operation, from its samples.
package struct FreshnessEstimate: Sendable, Equatable {
    /// Samples taken (all time) and how many of them found a change.
    package var samples: Int
    package var changed: Int
    /// Estimated median and 10th percentile of the time until an answer changes, in seconds;
    /// nil below `minimumSamples`, or when the fitted share changed never reaches 50 % (10 %)
    /// within the ages sampled.
    package var medianChangeSeconds: Double?
    package var p10ChangeSeconds: Double?
    /// The operation's TTL as its latest sampled entry had it, in seconds.
    package var currentTTLSeconds: Double?
    /// Estimated share of hits served stale at the current TTL (nil below `minimumSamples`).
    package var staleHitRatio: Double?
    /// The 95 % interval for the longest TTL at which at least `target` of hits are fresh (nil
    /// below `minimumSamples`). Never reaching past the oldest age sampled: beyond it there is no
    /// evidence.
    package var interval: FreshnessInterval?
    /// The share of fresh hits the suggestion is for (`cache.freshness.target`).
    package var target: Double

    /// What the samples suggest.
    package enum Suggestion: Sendable, Equatable {
        /// A TTL in seconds, at least `minimumUsefulTTLSeconds`: the interval's lower end.
        case ttl(Double)
        /// Even the interval's upper end is below `minimumUsefulTTLSeconds`.
        case tooFastToCache
        /// The interval straddles `minimumUsefulTTLSeconds`, or there are fewer than
        /// `minimumSamples`: more samples will tell.
        case undecided
    }

    /// The suggestion read from `interval`.
    package var suggestion: Suggestion {
        guard let interval else { return .undecided }
        if interval.lowSeconds >= Self.minimumUsefulTTLSeconds { return .ttl(interval.lowSeconds) }
        if interval.highSeconds < Self.minimumUsefulTTLSeconds { return .tooFastToCache }
        return .undecided
    }

    /// The suggested TTL in seconds: 0 when the answers change too fast to cache, nil while
    /// undecided (the figures `/stats` shows as `suggested_ttl_s`).
    package var suggestedTTLSeconds: Double? {
        switch suggestion {
        case .ttl(let seconds): seconds
        case .tooFastToCache: 0
        case .undecided: nil
        }
    }

    /// The shortest TTL worth suggesting. HTTP counts `max-age` and `Age` in whole seconds, so a
    /// shorter TTL reaches clients and caches in front as `max-age=0`, and an entry that lives
    /// less than a second saves the origin little beyond what coalescing concurrent misses
    /// already saves.
    package static let minimumUsefulTTLSeconds = 1.0

    /// Samples an estimate needs before it speaks: with fewer, the suggested TTL of an
    /// exponential change process misses the true one by more than a half one time in ten.
    package static let minimumSamples = 100

    /// One observation: the age in seconds and whether the answer had changed by then.
    package typealias Observation = (age: Double, changed: Bool)

    /// The estimate from `observations` (any order); `samples` and `changed` are the all-time
    /// counts (the observations may be the latest window of them).
    package init(
        observations: [Observation], samples: Int, changed: Int, currentTTLSeconds: Double?, target: Double
    ) {
        self.samples = samples
        self.changed = changed
        self.currentTTLSeconds = currentTTLSeconds
        self.target = target
        guard observations.count >= Self.minimumSamples else { return }
        let sorted = observations.sorted { $0.age < $1.age }
        let ages = sorted.map(\.age)
        let fitted = Self.isotonicFit(sorted.map { $0.changed ? 1.0 : 0.0 })
        medianChangeSeconds = Self.quantile(0.5, ages: ages, fitted: fitted)
        p10ChangeSeconds = Self.quantile(0.1, ages: ages, fitted: fitted)
        // Running means of the fit: the stale share of hits under a TTL of each sampled age.
        var runningMeans: [Double] = []
        runningMeans.reserveCapacity(fitted.count)
        var sum = 0.0
        for (index, value) in fitted.enumerated() {
            sum += value
            runningMeans.append(sum / Double(index + 1))
        }
        if let ttl = currentTTLSeconds {
            let younger = ages.partitionIndex { $0 > ttl }
            staleHitRatio = younger == 0 ? 0 : runningMeans[younger - 1]
        }
        interval = FreshnessInterval(sortedObservations: sorted, target: target)
    }

    /// The TTL at which `target` of hits, spread evenly over entries' lives, are fresh when
    /// answers change after exponential times with mean `meanSeconds` (a Poisson process): solves
    /// (m/T)(1 - e^(-T/m)) = target by bisection. The truth the tests hold the estimate to.
    package static func exponentialTTL(meanSeconds mean: Double, target: Double) -> Double {
        var low = 1e-9
        var high = 100 * mean
        for _ in 0..<200 {
            let middle = (low + high) / 2
            if mean / middle * (1 - exp(-middle / mean)) >= target { low = middle } else { high = middle }
        }
        return low
    }

    /// The non-decreasing sequence closest to `values` in least squares (pool adjacent
    /// violators): each block of pooled neighbours takes their mean.
    package static func isotonicFit(_ values: [Double]) -> [Double] {
        var blocks: [(sum: Double, count: Int)] = []
        blocks.reserveCapacity(values.count)
        for value in values {
            blocks.append((value, 1))
            while blocks.count > 1 {
                let last = blocks[blocks.count - 1]
                let previous = blocks[blocks.count - 2]
                guard previous.sum / Double(previous.count) > last.sum / Double(last.count) else { break }
                blocks.removeLast()
                blocks[blocks.count - 1] = (previous.sum + last.sum, previous.count + last.count)
            }
        }
        var fitted: [Double] = []
        fitted.reserveCapacity(values.count)
        for block in blocks {
            fitted.append(contentsOf: repeatElement(block.sum / Double(block.count), count: block.count))
        }
        return fitted
    }

    /// The first sampled age at which the fitted share changed reaches `p`, nil when it never does.
    private static func quantile(_ p: Double, ages: [Double], fitted: [Double]) -> Double? {
        let index = fitted.partitionIndex { $0 >= p - 1e-12 }
        return index < ages.count ? ages[index] : nil
    }
}

extension Array {
    /// The index of the first element for which `isAfter` holds, in an array where it holds
    /// for a suffix (binary search).
    fileprivate func partitionIndex(where isAfter: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isAfter(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
