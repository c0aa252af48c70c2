// CDNPurgeQueue's bounds on a manual clock (docs/CDN.md, "Bounds"): a purge naming many entities
// of one type becomes the type's tag; past max_queue, a mutation's entities become their types and
// never purge-everything; calls waiting for a retry count in max_queue; at the stop, calls waiting
// for a retry go once more, and what is left unanswered is lost and counted.

import BreakwaterCore
import Foundation
import Testing

struct CDNPurgeQueueBoundsTests {
    static let cloudflare = CDNTarget.cloudflare(
        zoneID: "zone", token: "token", apiURL: OriginURL(parsing: "https://api.cloudflare.com/client/v4")!)

    static func queue(retries: Int = 3, maxQueue: Int = 100) -> CDNPurgeQueue {
        CDNPurgeQueueTests.queue(retries: retries, maxQueue: maxQueue, target: cloudflare)
    }

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { CDNPurgeQueueTests.at(milliseconds) }

    static func sent(_ actions: [CDNQueueAction]) -> [CDNCall] { CDNPurgeQueueTests.sent(actions) }

    /// A mutation's purge of `count` ids of `type`, from `first` on.
    static func mutation(_ type: String, _ count: Int, from first: Int = 1) -> CDNPurge {
        .tags((first..<first + count).map { "\(type):\($0)" }, soft: false, origin: .mutation)
    }

    static func tags(of call: CDNCall) -> [String] {
        let body = try? JSONSerialization.jsonObject(with: Data(call.request.body)) as? [String: Any]
        return body?["tags"] as? [String] ?? []
    }

    static func purgesEverything(_ calls: [CDNCall]) -> Bool {
        calls.contains { $0.request.bodyText.contains("purge_everything") }
    }

    @Test func aPurgeNamingManyEntitiesOfOneTypeSendsTheTypesTag() throws {
        var queue = Self.queue()
        let purge = CDNPurge.tags(
            Self.mutation("Launch", 1_000).tags + Self.mutation("Rocket", CDNPurgeQueue.entitiesPerType).tags,
            soft: false, origin: .mutation)
        _ = queue.enqueue(purge, now: Self.at(0))
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        try #require(calls.count == 1, "65 tags: one call, not eleven")
        #expect(Self.tags(of: calls[0]) == ["Launch"] + Self.mutation("Rocket", CDNPurgeQueue.entitiesPerType).tags)
        #expect(queue.statistics.collapses == 1)
    }

    @Test func aPurgeWithinTheBoundKeepsItsIds() {
        var queue = Self.queue()
        _ = queue.enqueue(Self.mutation("Launch", CDNPurgeQueue.entitiesPerType), now: Self.at(0))
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        #expect(calls.flatMap(Self.tags(of:)) == Self.mutation("Launch", CDNPurgeQueue.entitiesPerType).tags)
        #expect(queue.statistics.collapses == 0)
    }

    @Test func aMutationOverflowPurgesTheTypesNeverEverything() throws {
        var queue = Self.queue(maxQueue: 10)
        _ = queue.enqueue(Self.mutation("Launch", 8), now: Self.at(0))
        let actions = queue.enqueue(Self.mutation("Rocket", 8), now: Self.at(1))
        #expect(actions.contains(.overflowed(dropped: 16, everything: false)))
        #expect(queue.statistics.overflows == 1)
        #expect(queue.statistics.collapses == 2)
        #expect(queue.statistics.queued == 2)
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        #expect(!Self.purgesEverything(calls))
        #expect(calls.flatMap(Self.tags(of:)) == ["Launch", "Rocket"])
    }

    @Test func mutationsNamingMoreTypesThanMaxQueueStillNeverPurgeEverything() {
        var queue = Self.queue(maxQueue: 2)
        for (index, type) in ["Launch", "Rocket", "Mission", "User", "Trip"].enumerated() {
            _ = queue.enqueue(Self.mutation(type, 2), now: Self.at(index))
        }
        let calls = Self.sent(queue.tick(now: Self.at(50)))
        #expect(!Self.purgesEverything(calls))
        #expect(calls.flatMap(Self.tags(of:)) == ["Launch", "Rocket", "Mission", "User", "Trip"])
    }

    @Test func anAdminPurgeAmongThemMayStillPurgeEverything() {
        var queue = Self.queue(maxQueue: 2)
        _ = queue.enqueue(.tags(["op:GetLaunches"], soft: false, origin: .admin), now: Self.at(0))
        for (index, type) in ["Launch", "Rocket"].enumerated() {
            _ = queue.enqueue(Self.mutation(type, 2), now: Self.at(index + 1))
        }
        #expect(Self.purgesEverything(Self.sent(queue.tick(now: Self.at(50)))))
    }

    @Test func callsWaitingForARetryCountInMaxQueue() throws {
        var queue = Self.queue(maxQueue: 10)
        _ = queue.enqueue(Self.mutation("Launch", 8), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        #expect(Self.sent(queue.finished(call.id, .answered(status: 500), now: Self.at(60))).isEmpty)
        #expect(queue.statistics.queued == 8)
        let actions = queue.enqueue(Self.mutation("Rocket", 5), now: Self.at(70))
        #expect(actions.contains(.overflowed(dropped: 13, everything: false)))
        #expect(queue.statistics.queued == 2, "the retried call rejoined the next round, as types")
        #expect(queue.nextDeadline == Self.at(160), "the retry's backoff still holds")
        #expect(Self.sent(queue.tick(now: Self.at(159))).isEmpty)
        let calls = Self.sent(queue.tick(now: Self.at(160)))
        #expect(calls.flatMap(Self.tags(of:)) == ["Rocket", "Launch"])
        #expect(!Self.purgesEverything(calls))
    }

    @Test func failedRoundsCannotPileUpBeyondMaxQueue() throws {
        var queue = Self.queue(maxQueue: 10)
        for round in 0..<50 {
            _ = queue.enqueue(Self.mutation("Launch", 5, from: round * 5), now: Self.at(round * 100))
            for call in Self.sent(queue.tick(now: Self.at(round * 100 + 50))) {
                _ = queue.finished(call.id, .answered(status: 500), now: Self.at(round * 100 + 60))
            }
            #expect(queue.statistics.queued <= 10)
        }
    }

    @Test func atTheStopACallWaitingForARetryGoesOnceMore() throws {
        var queue = Self.queue(retries: 3)
        _ = queue.enqueue(Self.mutation("Launch", 3), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.finished(call.id, .failed("reset"), now: Self.at(60))
        #expect(!queue.isSettled, "a retry waits")
        let again = try #require(Self.sent(queue.flush(now: Self.at(70))).first, "sent at once, not at 160")
        #expect(again.request == call.request)
        _ = queue.finished(again.id, .answered(status: 200), now: Self.at(80))
        #expect(queue.isSettled)
        #expect(queue.statistics.sent == 1)
        #expect(queue.statistics.lost == 0)
    }

    @Test func atTheStopAFailedLastAttemptIsLostAndCounted() throws {
        var queue = Self.queue(retries: 3)
        _ = queue.enqueue(Self.mutation("Launch", 3), now: Self.at(0))
        let call = try #require(Self.sent(queue.tick(now: Self.at(50))).first)
        _ = queue.finished(call.id, .answered(status: 503), now: Self.at(60))
        let again = try #require(Self.sent(queue.flush(now: Self.at(70))).first)
        let actions = queue.finished(again.id, .answered(status: 503), now: Self.at(80))
        #expect(actions.contains(.lost(purges: 3, reason: "HTTP 503")))
        #expect(queue.statistics.lost == 3)
        #expect(queue.nextDeadline == nil, "not retried again")
        #expect(queue.isSettled)
    }

    @Test func atTheStopWhatIsStillUnansweredIsLostAndCounted() throws {
        var queue = Self.queue()
        _ = queue.enqueue(Self.mutation("Launch", 3), now: Self.at(0))
        #expect(Self.sent(queue.flush(now: Self.at(1))).count == 1)
        #expect(queue.abandon() == [.lost(purges: 3, reason: "no answer within cdn.timeout of the stop")])
        #expect(queue.statistics.lost == 3)
        #expect(queue.isSettled)
        #expect(queue.abandon().isEmpty, "counted once")
    }
}
