// CacheSnapshotCatchUp: which entries of a fleet's cache snapshot survive the start (docs/FLEET.md,
// "No purge lost"): the purges read from the log since the snapshot's position reach them before
// any is served; a log that no longer reaches back, a moved generation or an unread Redis drops
// them all. The snapshot is written and loaded for real, on a manual clock.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct CacheSnapshotCatchUpTests {
    typealias Log = PurgeLogFollowerTests
    typealias Snapshot = CacheSnapshotTests

    static func header(at position: UInt64 = 3, generation: UInt64 = 1) -> CacheSnapshotHeader {
        CacheSnapshotHeader(
            writtenAt: WallClockTime(millisecondsSinceEpoch: 0), purgeLogPosition: Log.id(position),
            generation: generation)
    }

    /// A purge of entity `N:<entity>` logged at `n`.
    static func purge(_ n: UInt64, entity: Int) -> PurgeLogEntry {
        PurgeLogEntry(
            id: Log.id(n),
            message: PurgeMessage(
                sender: "other", purge: PurgeRequest(selector: .tag("N:\(entity)"), soft: false), generation: 1))
    }

    /// Entries 1, 2 and 3 written to a snapshot and loaded by a restarted store; `decide` sees the
    /// header, and the replayed purges are applied as the server applies them.
    static func restart(
        _ decide: (CacheSnapshotHeader) -> CacheSnapshotCatchUp.Outcome
    ) throws -> (store: ResponseStore, clock: ManualClock, outcome: CacheSnapshotCatchUp.Outcome) {
        var result: (ResponseStore, ManualClock, CacheSnapshotCatchUp.Outcome)?
        try Snapshot.withFolder { folder in
            let path = folder + "/cache.snapshot"
            let clock = ManualClock()
            let store = ResponseStore(maxBytes: 1 << 20)
            for number in 1...3 { store.store(Snapshot.entry(number, clock: clock), now: clock.now) }
            _ = try CacheSnapshot.write(store, to: path, header: header(), now: clock.now, wallNow: clock.wallNow)
            clock.advance(by: .seconds(5))
            let restarted = ResponseStore(maxBytes: 1 << 20)
            var outcome: CacheSnapshotCatchUp.Outcome?
            let load = try #require(
                try CacheSnapshot.load(from: path, into: restarted, now: clock.now, wallNow: clock.wallNow) {
                    let decided = decide($0)
                    outcome = decided
                    if case .drop(let reason) = decided { return "\(reason)" }
                    return nil
                })
            if case .replay(let purges, _)? = outcome {
                let purger = CachePurger(store: restarted, clock: clock)
                for purge in purges { purger.applyRemote(purge) }
            }
            #expect(load.loaded == (load.refusal == nil ? 3 : 0))
            result = (restarted, clock, try #require(outcome))
        }
        return try #require(result)
    }

    static func isFresh(_ number: Int, in store: ResponseStore, _ clock: ManualClock) -> Bool {
        if case .fresh = store.lookup(Snapshot.key(number), now: clock.now) { true } else { false }
    }

    @Test func theEntriesPurgedSinceTheSnapshotAreGoneBeforeServingAndTheOthersStay() throws {
        let (store, clock, outcome) = try Self.restart { header in
            var catchUp = try! #require(CacheSnapshotCatchUp(header: header))
            #expect(catchUp.start == .read(from: Log.id(3)))
            #expect(catchUp.read([Log.entry(3), Self.purge(4, entity: 2)]) == .done)
            return catchUp.outcome(fleetGeneration: 1)
        }
        #expect(outcome == .replay([PurgeRequest(selector: .tag("N:2"), soft: false)], through: Log.id(4)))
        #expect(Snapshot.isMiss(store.lookup(Snapshot.key(2), now: clock.now)))
        #expect(Self.isFresh(1, in: store, clock))
        #expect(Self.isFresh(3, in: store, clock))
    }

    @Test func theLogIsReadPageByPageFromTheLastEntryRead() {
        var catchUp = CacheSnapshotCatchUp(header: Self.header(), pageSize: 2)!
        #expect(catchUp.read([Log.entry(3), Self.purge(4, entity: 1)]) == .read(from: Log.id(4)))
        // An entry without a purge (the log's `m = start`) moves the position and purges nothing.
        let start = PurgeLogEntry(id: Log.id(5), message: nil)
        #expect(catchUp.read([Self.purge(4, entity: 1), start]) == .read(from: Log.id(5)))
        #expect(catchUp.read([start, Self.purge(6, entity: 3)]) == .read(from: Log.id(6)))
        #expect(catchUp.read([Self.purge(6, entity: 3)]) == .done)
        let purges = [1, 3].map { PurgeRequest(selector: .tag("N:\($0)"), soft: false) }
        #expect(catchUp.outcome(fleetGeneration: 1) == .replay(purges, through: Log.id(6)))
    }

    @Test func nothingMadeSinceKeepsEveryEntry() throws {
        let (store, clock, outcome) = try Self.restart { header in
            var catchUp = CacheSnapshotCatchUp(header: header)!
            _ = catchUp.read([Log.entry(3)])
            return catchUp.outcome(fleetGeneration: 1)
        }
        #expect(outcome == .replay([], through: Log.id(3)))
        #expect((1...3).allSatisfy { Self.isFresh($0, in: store, clock) })
    }

    @Test func aLogTrimmedPastThePositionLoadsNothing() throws {
        let (store, _, outcome) = try Self.restart { header in
            var catchUp = CacheSnapshotCatchUp(header: header)!
            #expect(catchUp.read([Self.purge(9, entity: 1), Self.purge(10, entity: 2)]) == .done)
            return catchUp.outcome(fleetGeneration: 1)
        }
        #expect(outcome == .drop(.log(.logTrimmed(first: Log.id(9), applied: Log.id(3)))))
        #expect(store.statistics.entries == 0)
    }

    @Test func aLogTrimmedWhileBeingReadLoadsNothing() {
        var catchUp = CacheSnapshotCatchUp(header: Self.header(), pageSize: 2)!
        #expect(catchUp.read([Log.entry(3), Self.purge(4, entity: 1)]) == .read(from: Log.id(4)))
        #expect(catchUp.read([Self.purge(8, entity: 2)]) == .done)
        #expect(catchUp.outcome(fleetGeneration: 1) == .drop(.log(.logTrimmed(first: Log.id(8), applied: Log.id(4)))))
    }

    @Test func aLostLogLoadsNothing() {
        var catchUp = CacheSnapshotCatchUp(header: Self.header())!
        #expect(catchUp.read([]) == .done)
        #expect(catchUp.outcome(fleetGeneration: 1) == .drop(.log(.logLost(applied: Log.id(3)))))
    }

    @Test func aMovedGenerationLoadsNothing() throws {
        let (store, _, outcome) = try Self.restart { header in
            var catchUp = CacheSnapshotCatchUp(header: header)!
            _ = catchUp.read([Log.entry(3)])
            return catchUp.outcome(fleetGeneration: 2)
        }
        #expect(outcome == .drop(.log(.generationMoved(snapshot: 1, fleet: 2))))
        #expect(store.statistics.entries == 0)
    }

    @Test func anUnreadRedisLoadsNothing() throws {
        let (store, _, outcome) = try Self.restart { header in
            var catchUp = CacheSnapshotCatchUp(header: header)!
            catchUp.failed("connection refused")
            return catchUp.outcome(fleetGeneration: nil)
        }
        #expect(outcome == .drop(.unread("connection refused")))
        #expect(store.statistics.entries == 0)
        var unreadGeneration = CacheSnapshotCatchUp(header: Self.header())!
        _ = unreadGeneration.read([Log.entry(3)])
        guard case .drop(.unread) = unreadGeneration.outcome(fleetGeneration: nil) else {
            Issue.record("an unknown generation must drop the entries")
            return
        }
    }

    @Test func aSnapshotWithoutAPositionHasNothingToCatchUpFrom() {
        let unpositioned = CacheSnapshotHeader(writtenAt: WallClockTime(millisecondsSinceEpoch: 0))
        #expect(CacheSnapshotCatchUp(header: unpositioned) == nil)
    }
}
