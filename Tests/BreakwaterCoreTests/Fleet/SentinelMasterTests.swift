// SentinelMaster: the master is asked for at start and after a loss (one question at a time),
// followed on `+switch-master` for its own name only, and every move after the first is a failover.

import BreakwaterCore
import Testing

struct SentinelMasterTests {
    private let first = RedisHostPort(host: "10.0.0.1", port: 6379)
    private let second = RedisHostPort(host: "10.0.0.2", port: 6380)

    @Test func theFirstAnswerPointsEveryConnectionAtTheMaster() {
        var master = SentinelMaster(masterName: "bw")
        #expect(master.started() == .ask)
        #expect(master.isAsking)
        #expect(master.answered(first) == .move(to: first))
        #expect(master.master == first)
        #expect(master.failovers == 0)
        #expect(!master.isAsking)
    }

    @Test func aLossAsksOnceAndTheSameAnswerMovesNothing() {
        var master = SentinelMaster(masterName: "bw")
        _ = master.started()
        _ = master.answered(first)
        #expect(master.connectionLost() == .ask)
        // More losses while the question is out ask nothing more.
        #expect(master.connectionLost() == .none)
        #expect(master.answered(first) == .none)
        #expect(master.connectionLost() == .ask)
        #expect(master.answered(nil) == .none)
        #expect(master.master == first)
    }

    @Test func aNewAnswerIsAFailover() {
        var master = SentinelMaster(masterName: "bw")
        _ = master.started()
        _ = master.answered(first)
        _ = master.connectionLost()
        #expect(master.answered(second) == .move(to: second))
        #expect(master.failovers == 1)
    }

    @Test func switchMasterIsFollowedForItsOwnNameOnly() {
        var master = SentinelMaster(masterName: "bw")
        _ = master.started()
        _ = master.answered(first)
        #expect(master.switchAnnounced("other 10.0.0.1 6379 10.0.0.9 6379") == .none)
        #expect(master.switchAnnounced("bw 10.0.0.1 6379 10.0.0.2") == .none)
        #expect(master.switchAnnounced("bw 10.0.0.1 6379 10.0.0.2 notaport") == .none)
        #expect(master.switchAnnounced("bw 10.0.0.1 6379 10.0.0.2 6380") == .move(to: second))
        #expect(master.failovers == 1)
        // Every sentinel announces it: the others change nothing.
        #expect(master.switchAnnounced("bw 10.0.0.1 6379 10.0.0.2 6380") == .none)
        #expect(master.failovers == 1)
    }

    @Test(arguments: [
        (["10.0.0.1", "6379"], RedisHostPort(host: "10.0.0.1", port: 6379)),
        (["::1", "6379"], RedisHostPort(host: "::1", port: 6379)),
        (["10.0.0.1"], nil),
        (["", "6379"], nil),
        (["10.0.0.1", "0"], nil),
    ] as [([String], RedisHostPort?)])
    func parsesTheSentinelsAnswer(parts: [String], expected: RedisHostPort?) {
        #expect(SentinelMaster.parseAnswer(parts) == expected)
    }

    @Test func anAddressIsShownAsHostAndPort() {
        #expect(first.description == "10.0.0.1:6379")
        #expect(RedisHostPort(host: "::1", port: 26379).description == "[::1]:26379")
    }
}
