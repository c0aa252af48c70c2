// An entry's lifetime on the wall clock (how long the fleet's tier keeps it) and soft purges read
// back from the tier: the rules of CacheEntry+Lifetime.swift, in-process.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct CacheEntryLifetimeTests {
    static let storedAt = WallClockTime(millisecondsSinceEpoch: 1_000_000)

    static func entry(ttl: Duration = .seconds(30), swr: Duration = .seconds(10), sie: Duration = .seconds(300)) -> CacheEntry {
        CacheEntry.make(
            key: StoreFixture.key(1), body: Array("{}".utf8), contentType: "application/json", etag: StoreFixture.etag,
            storedAt: StoreFixture.start, storedAtWallClock: storedAt, ttl: ttl, staleWhileRevalidate: swr,
            staleIfError: sie, documentDigest: StoreFixture.document, operationName: "GetLaunches", tags: ["Launch:1"],
            isPerUser: false)
    }

    static func at(_ milliseconds: Int64) -> WallClockTime {
        WallClockTime(millisecondsSinceEpoch: storedAt.millisecondsSinceEpoch + milliseconds)
    }

    @Test(arguments: [
        // (ttl, swr, sie, expected lifetime): the TTL and the longer stale window.
        (Duration.seconds(30), Duration.seconds(10), Duration.seconds(300), Duration.seconds(330)),
        (.seconds(30), .seconds(60), .seconds(5), .seconds(90)),
        (.seconds(30), .zero, .zero, .seconds(30)),
    ])
    func lifetimeIsTheTTLAndTheLongerStaleWindow(ttl: Duration, swr: Duration, sie: Duration, expected: Duration) {
        #expect(Self.entry(ttl: ttl, swr: swr, sie: sie).lifetime == expected)
    }

    @Test func remainingLifetimeCountsOnTheWallClockAndEnds() {
        let entry = Self.entry()
        #expect(entry.remainingLifetimeMilliseconds(at: Self.at(0)) == 330_000)
        #expect(entry.remainingLifetimeMilliseconds(at: Self.at(329_999)) == 1)
        #expect(entry.remainingLifetimeMilliseconds(at: Self.at(330_000)) == 0)
        #expect(entry.remainingLifetimeMilliseconds(at: Self.at(400_000)) < 0)
    }

    @Test func theEarliestSoftPurgeAfterStoringEndsTheTTL() {
        let purged = Self.entry().softPurged(markedAt: [Self.at(12_000), Self.at(5_000)])
        #expect(purged.ttl == .seconds(5))
        #expect(purged.staleWhileRevalidate == .seconds(10) && purged.staleIfError == .seconds(300))
        #expect(purged.body == Array("{}".utf8) && purged.tags == ["Launch:1"] && purged.etag == StoreFixture.etag)
        #expect(purged.storedAtWallClock == Self.storedAt)
    }

    @Test func aPurgeBeforeStoringOrAfterTheTTLChangesNothing() {
        let entry = Self.entry()
        // A purge of everything made before the entry was stored does not reach it.
        #expect(entry.softPurged(markedAt: [Self.at(-1)]).ttl == .seconds(30))
        #expect(entry.softPurged(markedAt: [Self.at(30_000)]).ttl == .seconds(30))
        #expect(entry.softPurged(markedAt: []).ttl == .seconds(30))
        // At the instant of storing: stale at once.
        #expect(entry.softPurged(markedAt: [Self.at(0)]).ttl == .zero)
    }
}
