// PurgeOutbox and FleetGeneration: a purge waits until Redis confirms it and hides the L2 entries
// it reaches meanwhile; the fleet's generation never goes backwards; the registry is written back
// to a Redis that started empty, paced.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct PurgeOutboxTests {
    static let hasher = SoftwareSHA256()

    static func entry(storedAt milliseconds: Int64, operation: String = "GetLaunch", tags: [String] = ["Launch:7"])
        -> CacheEntry
    {
        CacheEntry.make(
            key: CacheKey(digest: hasher.sha256("k")), body: Array("{}".utf8), contentType: "application/json",
            etag: "\"e\"", storedAt: .now, storedAtWallClock: WallClockTime(millisecondsSinceEpoch: milliseconds),
            ttl: .seconds(30), staleWhileRevalidate: .zero, staleIfError: .zero,
            documentDigest: hasher.sha256("{ launch { id } }"), operationName: operation, tags: tags, isPerUser: false)
    }

    static let now = ContinuousClock.now

    static func at(_ milliseconds: Int64) -> WallClockTime { WallClockTime(millisecondsSinceEpoch: milliseconds) }

    @Test func aPendingPurgeHidesTheEntriesItReachesStoredBeforeIt() {
        var outbox = PurgeOutbox()
        #expect(!outbox.hides(Self.entry(storedAt: 100), now: Self.now))
        let pending = outbox.add(PurgeRequest(selector: .tag("Launch:7"), soft: false), at: Self.at(200))
        #expect(outbox.hides(Self.entry(storedAt: 100), now: Self.now))
        #expect(outbox.hides(Self.entry(storedAt: 200), now: Self.now))
        #expect(!outbox.hides(Self.entry(storedAt: 201), now: Self.now), "stored after the purge: fetched anew")
        #expect(!outbox.hides(Self.entry(storedAt: 100, tags: ["Launch:8"]), now: Self.now))
        outbox.confirm(pending.sequence, now: Self.now)
        #expect(outbox.pending.isEmpty)
        // An L2 read sent before the confirmation may be answered after it: still hidden a while.
        #expect(outbox.hides(Self.entry(storedAt: 100), now: Self.now + .seconds(1)))
        #expect(!outbox.hides(Self.entry(storedAt: 100), now: Self.now + .seconds(2)), "Redis deleted it")
        outbox.prune(now: Self.now + .seconds(2))
        #expect(outbox.hidingCount == 0)
    }

    @Test(arguments: [
        (PurgeSelector.all, true), (.operation("GetLaunch"), true), (.operation("Other"), false),
        (.tag("Launch"), false), (.tag("Launch:7"), true),
    ])
    func eachSelectorReachesWhatALocalPurgeWould(selector: PurgeSelector, reaches: Bool) {
        var outbox = PurgeOutbox()
        outbox.add(PurgeRequest(selector: selector, soft: true), at: Self.at(500))
        #expect(outbox.verdict(on: Self.entry(storedAt: 1), now: Self.now) == (reaches ? .staleFrom(Self.at(500)) : nil))
    }

    @Test func aPendingSoftPurgeMakesTheEntryStaleFromThePurgeAndAHardOneHidesIt() {
        var outbox = PurgeOutbox()
        outbox.add(PurgeRequest(selector: .tag("Launch:7"), soft: true), at: Self.at(300))
        outbox.add(PurgeRequest(selector: .operation("GetLaunch"), soft: true), at: Self.at(200))
        #expect(outbox.verdict(on: Self.entry(storedAt: 100), now: Self.now) == .staleFrom(Self.at(200)))
        #expect(!outbox.hides(Self.entry(storedAt: 100), now: Self.now))
        outbox.add(PurgeRequest(selector: .all, soft: false), at: Self.at(400))
        #expect(outbox.verdict(on: Self.entry(storedAt: 100), now: Self.now) == .hidden)
    }

    @Test func aFullOutboxCollapsesIntoOnePurgeOfEverything() {
        var outbox = PurgeOutbox(capacity: 2)
        outbox.add(PurgeRequest(selector: .tag("A"), soft: true), at: Self.at(1))
        outbox.add(PurgeRequest(selector: .tag("B"), soft: false), at: Self.at(2))
        outbox.add(PurgeRequest(selector: .tag("C"), soft: true), at: Self.at(3))
        #expect(outbox.pending.count == 1)
        #expect(outbox.first?.purge == PurgeRequest(selector: .all, soft: false))
        #expect(Set(outbox.pending.map(\.sequence)).count == 1)
    }

    @Test func sequencesAreUniqueAndConfirmingOneKeepsTheOthers() {
        var outbox = PurgeOutbox()
        let a = outbox.add(PurgeRequest(selector: .tag("A"), soft: false), at: Self.at(1))
        let b = outbox.add(PurgeRequest(selector: .tag("B"), soft: false), at: Self.at(2))
        #expect(a.sequence != b.sequence)
        outbox.confirm(a.sequence, now: Self.now)
        #expect(outbox.first == b)
    }
}

struct FleetGenerationTests {
    @Test(arguments: [
        (UInt64(2), UInt64?.none, UInt64(2), true),  // Redis restarted empty: raised to ours
        (2, 0, 2, true),
        (2, 2, 2, false),
        (2, 5, 5, false),  // another proxy purged everything: follow it
        (0, nil, 0, true),
    ])
    func theGenerationNeverGoesBackwards(own: UInt64, shared: UInt64?, generation: UInt64, raises: Bool) {
        let result = FleetGeneration.reconcile(own: own, shared: shared)
        #expect(result.generation == generation)
        #expect(result.raisesShared == raises)
    }

    @Test func aPurgeOfEverythingMovesPastBothNumbers() {
        #expect(FleetGeneration.afterPurgeOfEverything(own: 2, shared: nil) == 3)
        #expect(FleetGeneration.afterPurgeOfEverything(own: 2, shared: 1) == 3)
        #expect(FleetGeneration.afterPurgeOfEverything(own: 2, shared: 7) == 8)
    }

    @Test func theRegistryIsWrittenBackWhenRedisStartedEmpty() {
        var epoch = RedisDataEpoch()
        let sights = [("a", false), ("a", false), ("b", false), ("c", true)].map {
            epoch.observed($0.0, setByThisProxy: $0.1)
        }
        // First sight of a Redis in use; the same again; another proxy found Redis empty first;
        // this proxy found it empty.
        #expect(sights == [false, false, true, true])
    }

    @Test func theWriteBackGoesInBatchesInOrder() {
        let hasher = SoftwareSHA256()
        let digests = (0..<5).map { hasher.sha256("d\($0)") }
        var writeBack = RegistryWriteBack(digests, batchSize: 2)
        var batches: [[SHA256Digest]] = []
        while !writeBack.isFinished { batches.append(writeBack.nextBatch()) }
        #expect(batches == [Array(digests[0..<2]), Array(digests[2..<4]), [digests[4]]])
    }
}
