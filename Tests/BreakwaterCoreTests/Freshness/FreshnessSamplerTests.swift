// The sampling decisions on a manual clock and a seeded generator (docs/FRESHNESS.md).

import Testing

@testable import BreakwaterCore
import BreakwaterFixtures

@Suite struct FreshnessSamplerTests {
    static let start = ContinuousClock.now

    static func key(_ index: Int) -> CacheKey {
        // Digests are uniform bytes: a seeded generator stands in for SHA-256.
        var random = SplitMix64(seed: UInt64(index))
        return CacheKey(digest: SHA256Digest(words: (random.next(), random.next(), random.next(), random.next())))
    }

    static func candidate(
        _ key: CacheKey, ttl: Duration = .seconds(10), at storedAt: ContinuousClock.Instant = start, heldBytes: Int = 100
    ) -> FreshnessCandidate<Int> {
        FreshnessCandidate(
            key: key, operationName: "GetLaunch", etag: "\"a\"", storedAt: storedAt, ttl: ttl, payload: 0,
            heldBytes: heldBytes)
    }

    @Test func theShareOfKeysSampledFollowsTheSettingAndEveryProxyAgrees() {
        let keys = (0..<20_000).map(Self.key)
        let sampled = keys.filter { FreshnessSelection.isSampled($0, share: 0.1) }
        #expect((1_800...2_200).contains(sampled.count), "\(sampled.count) of 20000")
        // The choice is the key's alone: another proxy asked again picks the same keys.
        #expect(keys.filter { FreshnessSelection.isSampled($0, share: 0.1) } == sampled)
        #expect(keys.allSatisfy { FreshnessSelection.isSampled($0, share: 1) })
        #expect(!keys.contains { FreshnessSelection.isSampled($0, share: 0) })
    }

    @Test func perUserEntriesAndUnsampledKeysAreNeverScheduled() {
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1, maxFetchesPerSecond: 100))
        var random = SplitMix64(seed: 1)
        #expect(sampler.offer(Self.candidate(Self.key(1)), isPerUser: true, using: &random) == .notSampled)
        #expect(sampler.offer(Self.candidate(Self.key(2), ttl: .zero), isPerUser: false, using: &random) == .notSampled)
        var off = FreshnessSampler<Int>(settings: FreshnessSettings(share: 0, maxFetchesPerSecond: 100))
        #expect(off.offer(Self.candidate(Self.key(3)), isPerUser: false, using: &random) == .notSampled)
        #expect(sampler.pendingCount == 0)
    }

    @Test func samplesFallDueAtUniformAgesWithinTheLifetime() {
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1, maxFetchesPerSecond: 1_000_000))
        var random = SplitMix64(seed: 2)
        var ages: [Double] = []
        for index in 0..<4000 {
            guard case .scheduled(let due) = sampler.offer(Self.candidate(Self.key(index)), isPerUser: false, using: &random)
            else { Issue.record("not scheduled"); return }
            ages.append(StatsReport.seconds(due - Self.start))
        }
        #expect(ages.allSatisfy { $0 >= 0 && $0 < 10 })
        // Uniform: each second of the ten holds about a tenth.
        for second in 0..<10 {
            let share = Double(ages.count(where: { Int($0) == second })) / Double(ages.count)
            #expect(abs(share - 0.1) < 0.025, "second \(second): \(share)")
        }
        #expect(sampler.takeDue(now: Self.start - .seconds(1)).isEmpty)
    }

    @Test func theRateBoundHoldsUnderLoadAndDropsRatherThanDelays() {
        let rate = 5.0
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1, maxFetchesPerSecond: rate))
        var random = SplitMix64(seed: 3)
        for index in 0..<5000 {
            _ = sampler.offer(Self.candidate(Self.key(index)), isPerUser: false, using: &random)
        }
        var perSecond = [Int](repeating: 0, count: 10)
        var now = Self.start
        while now < Self.start + .seconds(10) {
            now += .milliseconds(10)
            let due = sampler.takeDue(now: now)
            for candidate in due { sampler.finished(candidate.key) }
            let second = min(9, Int(StatsReport.seconds(now - Self.start)))
            perSecond[second] += due.count
        }
        #expect(perSecond.allSatisfy { $0 <= Int(rate) + 1 }, "\(perSecond)")
        #expect(perSecond.reduce(0, +) <= Int(rate * 10) + 1)
        #expect(perSecond.reduce(0, +) >= Int(rate * 10) - 2)
        // Everything else was dropped, none kept for later.
        #expect(sampler.pendingCount == 0)
        #expect(sampler.skippedForRate == 5000 - perSecond.reduce(0, +))
    }

    /// Checked every 10 ms, a bound above 100 a second is reached, not capped at one per check.
    @Test func aBoundAboveOneFetchPerCheckIsReached() {
        let rate = 500.0
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1, maxFetchesPerSecond: rate))
        var random = SplitMix64(seed: 5)
        // 10,000 samples due over 10 s: twice the bound.
        for index in 0..<10_000 {
            _ = sampler.offer(Self.candidate(Self.key(index)), isPerUser: false, using: &random)
        }
        var taken = 0
        var now = Self.start
        while now < Self.start + .seconds(10) {
            now += FreshnessSampler<Int>.checkPeriod
            let due = sampler.takeDue(now: now)
            for candidate in due { sampler.finished(candidate.key) }
            taken += due.count
        }
        #expect(taken >= Int(rate * 10 * 0.95), "\(taken) in 10 s at a bound of \(rate) a second")
        #expect(taken <= Int(rate * 10) + 10)
    }

    @Test func oneSamplingFetchAtATimePerKey() {
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1, maxFetchesPerSecond: 1000))
        var random = SplitMix64(seed: 4)
        let key = Self.key(1)
        _ = sampler.offer(Self.candidate(key, ttl: .seconds(1)), isPerUser: false, using: &random)
        _ = sampler.offer(Self.candidate(key, ttl: .seconds(1)), isPerUser: false, using: &random)
        let due = sampler.takeDue(now: Self.start + .seconds(2))
        #expect(due.count == 1)
        #expect(sampler.skippedBusy == 1)
        sampler.finished(key)
        _ = sampler.offer(Self.candidate(key, ttl: .seconds(1)), isPerUser: false, using: &random)
        #expect(sampler.takeDue(now: Self.start + .seconds(4)).count == 1)
    }

    @Test func theScheduleIsBounded() {
        var sampler = FreshnessSampler<Int>(settings: FreshnessSettings(share: 1), maxPending: 3)
        var random = SplitMix64(seed: 5)
        let offers = (0..<5).map { sampler.offer(Self.candidate(Self.key($0)), isPerUser: false, using: &random) }
        #expect(offers.filter { $0 == .full }.count == 2)
        #expect(sampler.pendingCount == 3)
    }

    @Test func theScheduleIsBoundedByTheBytesItsPayloadsHold() {
        var sampler = FreshnessSampler<Int>(
            settings: FreshnessSettings(share: 1, maxFetchesPerSecond: 1_000), maxPendingBytes: 10_000)
        var random = SplitMix64(seed: 6)
        // Requests with large variables: three fit, the fourth would pass the bound.
        let large = (0..<4).map {
            sampler.offer(Self.candidate(Self.key($0), heldBytes: 3_000), isPerUser: false, using: &random)
        }
        #expect(large.map { $0 == .full } == [false, false, false, true])
        #expect(sampler.pendingBytes == 9_000)
        // A small one still fits in what is left.
        #expect(sampler.offer(Self.candidate(Self.key(4), heldBytes: 1_000), isPerUser: false, using: &random) != .full)
        #expect(sampler.pendingBytes == 10_000)
        // Samples that fall due free their bytes for new ones, taken or dropped by the rate bound.
        #expect(!sampler.takeDue(now: Self.start + .seconds(10)).isEmpty)
        #expect(sampler.pendingCount == 0)
        #expect(sampler.pendingBytes == 0)
        #expect(sampler.offer(Self.candidate(Self.key(5), heldBytes: 3_000), isPerUser: false, using: &random) != .full)
    }

    @Test func aSampleRecordsTheAgeAndWhetherTheDigestChanged() {
        let candidate = Self.candidate(Self.key(1))
        let same = candidate.sample(answeredWith: "\"a\"", at: Self.start + .seconds(3))
        #expect(same == FreshnessSample(operationName: "GetLaunch", age: .seconds(3), changed: false, ttl: .seconds(10)))
        #expect(candidate.sample(answeredWith: "\"b\"", at: Self.start + .seconds(4)).changed)
    }

    @Test func theLedgerKeepsALatestWindowAndBoundsOperations() {
        var ledger = FreshnessLedger(maxOperations: 2, kept: 3)
        for index in 0..<5 {
            ledger.record(FreshnessSample(operationName: "A", age: .seconds(index), changed: index == 4, ttl: .seconds(9)))
        }
        ledger.record(FreshnessSample(operationName: "B", age: .seconds(1), changed: false, ttl: .seconds(9)))
        ledger.record(FreshnessSample(operationName: "C", age: .seconds(1), changed: true, ttl: .seconds(9)))
        let a = ledger.operations["A"]!
        #expect(a.samples == 5 && a.changed == 1)
        #expect(a.ages.sorted() == [2, 3, 4])
        #expect(ledger.operations["C"] == nil)
        #expect(ledger.operations[FreshnessLedger.other]?.changed == 1)
        #expect(ledger.estimates(target: 0.9)["A"]?.currentTTLSeconds == 9)
    }
}
