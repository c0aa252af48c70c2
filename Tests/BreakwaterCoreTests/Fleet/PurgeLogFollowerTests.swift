// PurgeLogFollower: when a proxy replays the purge log, when it drops its whole local cache, and
// when its local entries stop counting as fresh; fed events by hand, with a hand-moved clock.

import BreakwaterCore
import Testing

struct PurgeLogFollowerTests {
    static let me = "me"
    static let start = ContinuousClock.now

    static func id(_ n: UInt64) -> PurgeLogID { PurgeLogID(milliseconds: 1000 + n, sequence: 0) }

    static func message(_ n: UInt64, from sender: String = "other", logged: Bool = true) -> PurgeMessage {
        PurgeMessage(
            sender: sender, purge: PurgeRequest(selector: .tag("Launch:\(n)"), soft: false), generation: 1,
            logID: logged ? id(n) : nil)
    }

    static func entry(_ n: UInt64, from sender: String = "other") -> PurgeLogEntry {
        var logged = message(n, from: sender)
        logged.logID = nil
        return PurgeLogEntry(id: id(n), message: logged)
    }

    static func applied(_ actions: [PurgeLogFollower.Action]) -> [String] {
        actions.compactMap {
            if case .apply(let message, _) = $0, case .tag(let tag) = message.purge.selector { return tag }
            return nil
        }
    }

    /// A follower that learnt its first position at log entry 1 and follows.
    static func following() -> PurgeLogFollower {
        var follower = PurgeLogFollower(instanceID: me, pageSize: 3)
        let actions1 = follower.subscribed(now: start)
        #expect(actions1 == [.check])
        _ = follower.checked(logEnd: id(1), localCacheIsEmpty: true, now: start)
        #expect(follower.isFollowing)
        return follower
    }

    @Test func theFirstPositionIsTheLogsEndAndAnEmptyCacheIsKept() {
        var follower = PurgeLogFollower(instanceID: Self.me)
        _ = follower.subscribed(now: Self.start)
        let actions = follower.checked(logEnd: Self.id(5), localCacheIsEmpty: true, now: Self.start)
        #expect(actions == [.caughtUp(replayed: 0, gap: nil)])
        #expect(follower.lastApplied == Self.id(5))
    }

    @Test func aProxyThatCachedBeforeItEverReachedTheLogDropsItsCache() {
        var follower = PurgeLogFollower(instanceID: Self.me)
        _ = follower.subscriptionLost(now: Self.start)
        _ = follower.subscribed(now: Self.start)
        let actions = follower.checked(logEnd: Self.id(5), localCacheIsEmpty: false, now: Self.start)
        #expect(actions.first == .dropLocalCache(.neverFollowed))
    }

    @Test func liveMessagesAreAppliedOnceInOrderAndOwnOnesSkipped() {
        var follower = Self.following()
        let actions2 = follower.received(Self.message(2), now: Self.start)
        #expect(Self.applied(actions2) == ["Launch:2"])
        let actions3 = follower.received(Self.message(2), now: Self.start)
        #expect(actions3.isEmpty, "a duplicate is not applied twice")
        let actions4 = follower.received(Self.message(3, from: Self.me), now: Self.start)
        #expect(actions4.isEmpty)
        #expect(follower.lastApplied == Self.id(3), "its own purge moves the position on")
        let actions5 = follower.received(Self.message(9, logged: false), now: Self.start)
        #expect(Self.applied(actions5) == ["Launch:9"])
    }

    @Test func afterAReconnectWhatWasMissedIsReplayedPageByPageBeforeFollowingAgain() {
        var follower = Self.following()
        _ = follower.subscriptionLost(now: Self.start)
        #expect(!follower.isFollowing)
        let actions6 = follower.subscribed(now: Self.start + .seconds(3))
        #expect(actions6 == [.read(from: Self.id(1))])
        // A live message arriving meanwhile waits for the replay.
        let actions7 = follower.received(Self.message(5), now: Self.start + .seconds(3))
        #expect(actions7.isEmpty)
        let first = follower.read([Self.entry(1), Self.entry(2), Self.entry(3, from: Self.me)], now: Self.start)
        #expect(Self.applied(first) == ["Launch:2"])
        #expect(first.last == .read(from: Self.id(3)), "a full page asks for the next")
        #expect(!follower.isFollowing)
        let second = follower.read([Self.entry(3), Self.entry(4), ], now: Self.start + .seconds(3))
        #expect(Self.applied(second) == ["Launch:4", "Launch:5"])
        #expect(second.last == .caughtUp(replayed: 2, gap: .seconds(3)))
        #expect(follower.isFollowing)
        #expect(follower.lastApplied == Self.id(5))
    }

    @Test func aLogThatNoLongerHoldsTheLastAppliedEntryDropsTheCache() {
        var follower = Self.following()
        _ = follower.subscriptionLost(now: Self.start)
        _ = follower.subscribed(now: Self.start)
        let trimmed = follower.read([Self.entry(4), Self.entry(5)], now: Self.start)
        #expect(trimmed == [.dropLocalCache(.logTrimmed(first: Self.id(4), applied: Self.id(1))), .check])
        // The new position comes from the check; nothing is dropped twice.
        let actions8 = follower.checked(logEnd: Self.id(5), localCacheIsEmpty: false, now: Self.start)
        #expect(actions8.count == 1)
        #expect(follower.isFollowing)

        var emptied = Self.following()
        _ = emptied.subscriptionLost(now: Self.start)
        _ = emptied.subscribed(now: Self.start)
        let actions9 = emptied.read([], now: Self.start)
        #expect(actions9 == [.dropLocalCache(.logLost(applied: Self.id(1))), .check])
    }

    @Test func aDropForALogWithoutTheLastAppliedEntryNamesThatEntry() {
        #expect(PurgeLogFollower.DropReason.logLost(applied: Self.id(1)).missingApplied == Self.id(1))
        #expect(PurgeLogFollower.DropReason.logTrimmed(first: Self.id(4), applied: Self.id(2)).missingApplied == Self.id(2))
        #expect(PurgeLogFollower.DropReason.neverFollowed.missingApplied == nil)
        #expect(PurgeLogFollower.DropReason.generationMoved(snapshot: 1, fleet: 2).missingApplied == nil)
    }

    @Test func aGapLongerThanASecondMarksLocalEntriesStaleOnce() {
        var follower = Self.following()
        _ = follower.subscriptionLost(now: Self.start)
        let actions10 = follower.tick(now: Self.start + .milliseconds(500))
        #expect(actions10.isEmpty)
        let actions11 = follower.tick(now: Self.start + .seconds(1))
        #expect(actions11 == [.markLocalEntriesStale])
        let actions12 = follower.tick(now: Self.start + .seconds(2))
        #expect(actions12.isEmpty)
    }

    @Test func aShortGapCaughtUpWithinASecondMarksNothing() {
        var follower = Self.following()
        _ = follower.subscriptionLost(now: Self.start)
        _ = follower.subscribed(now: Self.start + .milliseconds(200))
        _ = follower.read([Self.entry(1)], now: Self.start + .milliseconds(300))
        let actions13 = follower.tick(now: Self.start + .seconds(5))
        #expect(actions13.isEmpty)
    }

    @Test func checksFailingWhileSubscribedCountAsAGapAndTheFirstGoodOneReplays() {
        // Redis paused: the subscriber stays connected, but the checks go unanswered.
        var follower = Self.following()
        _ = follower.checkFailed(now: Self.start)
        let actions14 = follower.tick(now: Self.start + .seconds(2))
        #expect(actions14 == [.markLocalEntriesStale])
        let actions15 = follower.checked(logEnd: Self.id(1), localCacheIsEmpty: false, now: Self.start + .seconds(3))
        #expect(actions15
            == [.read(from: Self.id(1))])
        let actions = follower.read([Self.entry(1), Self.entry(2)], now: Self.start + .seconds(3))
        #expect(Self.applied(actions) == ["Launch:2"])
        #expect(follower.isFollowing)
    }

    @Test func entriesThatNeverArriveOnTheChannelAreReadFromTheLogWithAWarning() {
        var follower = Self.following()
        // The first check sees an entry not delivered yet: it may be on its way.
        let actions16 = follower.checked(logEnd: Self.id(2), localCacheIsEmpty: false, now: Self.start)
        #expect(actions16.isEmpty)
        // Delivered in time: nothing to do.
        _ = follower.received(Self.message(2), now: Self.start)
        let actions17 = follower.checked(logEnd: Self.id(3), localCacheIsEmpty: false, now: Self.start)
        #expect(actions17.isEmpty)
        // Still missing a check later: warned and read.
        let actions18 = follower.checked(logEnd: Self.id(3), localCacheIsEmpty: false, now: Self.start + .seconds(1))
        #expect(actions18
            == [.warnMissed(applied: Self.id(2), logEnd: Self.id(3)), .read(from: Self.id(2))])
    }

    @Test func aFailedReadIsRetriedOnTheNextTick() {
        var follower = Self.following()
        _ = follower.subscriptionLost(now: Self.start)
        _ = follower.subscribed(now: Self.start)
        _ = follower.readFailed(now: Self.start)
        let actions19 = follower.tick(now: Self.start + .milliseconds(100))
        #expect(actions19 == [.read(from: Self.id(1))])
    }
}

struct PurgeMessageLogTests {
    @Test func theLogIDRidesOnTheSenderFieldAndRoundTrips() {
        let message = PurgeMessage(
            sender: "a1b2", purge: PurgeRequest(selector: .operation("Get Launches"), soft: true), generation: 4,
            logID: PurgeLogID(milliseconds: 1_700_000_000_000, sequence: 2))
        #expect(String(decoding: message.encoded, as: UTF8.self) == "v1 a1b2@1700000000000-2 1 4 op Get Launches")
        #expect(PurgeMessage(message.encoded) == message)
        let unlogged = PurgeMessage(sender: "a1b2", purge: message.purge, generation: 4)
        #expect(PurgeMessage(unlogged.encoded) == unlogged)
        #expect(PurgeMessage(Array("v1 a1b2@nonsense 0 1 all ".utf8)) == nil)
    }

    @Test func logIDsOrderByTimeThenSequence() {
        #expect(PurgeLogID("5-1")! < PurgeLogID("5-2")!)
        #expect(PurgeLogID("5-9")! < PurgeLogID("6-0")!)
        #expect(PurgeLogID("5")  == nil)
        #expect(PurgeLogID("12-3")?.description == "12-3")
    }
}
