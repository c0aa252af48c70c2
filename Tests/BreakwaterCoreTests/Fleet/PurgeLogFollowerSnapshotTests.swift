// PurgeLogFollower after a start from a cache snapshot: the purges made while the proxy was down
// are replayed from the snapshot's position, the cache is dropped when the log no longer reaches
// back or the generation moved, and the loaded entries turn stale when the replay is late.

import BreakwaterCore
import Testing

struct PurgeLogFollowerSnapshotTests {
    typealias Fixture = PurgeLogFollowerTests

    static func resumed(at position: UInt64 = 3, generation: UInt64 = 1) -> PurgeLogFollower {
        var follower = PurgeLogFollower(instanceID: Fixture.me, pageSize: 10)
        follower.resume(from: Fixture.id(position), generation: generation, now: Fixture.start)
        return follower
    }

    @Test func thePurgesMadeWhileDownAreReplayedFromTheSnapshotsPosition() {
        var follower = Self.resumed()
        #expect(follower.subscribed(now: Fixture.start) == [.read(from: Fixture.id(3))])
        let actions = follower.read([Fixture.entry(3), Fixture.entry(4), Fixture.entry(5)], now: Fixture.start)
        #expect(Fixture.applied(actions) == ["Launch:4", "Launch:5"])
        #expect(!actions.contains { if case .dropLocalCache = $0 { true } else { false } })
        #expect(follower.isFollowing)
        #expect(follower.generationSeen(1).isEmpty)
    }

    @Test func aLogThatNoLongerReachesBackDropsTheLoadedCache() {
        var follower = Self.resumed()
        _ = follower.subscribed(now: Fixture.start)
        let actions = follower.read([Fixture.entry(7), Fixture.entry(8)], now: Fixture.start)
        #expect(actions.first == .dropLocalCache(.logTrimmed(first: Fixture.id(7), applied: Fixture.id(3))))
        #expect(Fixture.applied(actions).isEmpty)
    }

    @Test func aMovedGenerationDropsTheLoadedCacheOnce() {
        var follower = Self.resumed(generation: 4)
        #expect(follower.generationSeen(5) == [.dropLocalCache(.generationMoved(snapshot: 4, fleet: 5))])
        #expect(follower.generationSeen(6).isEmpty)
    }

    @Test func aReplayThatDoesNotComeMarksTheLoadedEntriesStale() {
        var follower = Self.resumed()
        #expect(follower.tick(now: Fixture.start + .milliseconds(500)).isEmpty)
        #expect(follower.tick(now: Fixture.start + .seconds(1)) == [.markLocalEntriesStale])
    }
}
