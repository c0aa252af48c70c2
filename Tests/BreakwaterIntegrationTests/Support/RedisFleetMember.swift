// One "proxy" of a fleet inside the test process: its own event loops and RedisFleet, talking to
// a real redis-server, with helpers that run a tier call on the loop and await its completion.

import BreakwaterCore
import BreakwaterServer
import Foundation
import Logging

/// A RedisFleet on a loop group of its own, started at once (Redis may be down).
final class RedisFleetMember: @unchecked Sendable {
    let group: EventLoopGroup
    let fleet: RedisFleet
    var loop: EventLoop { group.loops[0] }

    init(
        url: String, timeout: Duration = .seconds(1), prefix: String = "bwtest:", loops: Int = 1,
        signingKey: String = "", log: CapturedLog? = nil
    ) throws {
        var settings = RedisSettings(endpoint: try RedisEndpoint(parsing: url))
        settings.timeout = timeout
        settings.keyPrefix = prefix
        settings.signingKey = signingKey
        group = try EventLoopGroup(count: loops)
        var logger = log?.logger(label: "test.redis") ?? Logger(label: "test.redis")
        if log == nil { logger.logLevel = .critical }
        fleet = RedisFleet(settings: settings, loops: group.loops, logger: logger)
        // A loop with no event at all returns from event_base_loop at once: a long timer keeps
        // these server-less loops running (a proxy's listeners do that in the real process).
        for loop in group.loops {
            loop.execute { [loop] in loop.schedule(after: .seconds(3600)) {} }
        }
        fleet.start()
        group.start()
    }

    var responseTier: RedisResponseTier { fleet.responseTier(for: loop)! }
    var documentTier: RedisDocumentTier { fleet.documentTier(for: loop) }

    /// Runs `body` on the loop and returns what it hands to `done`.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable (RedisFleetMember, _ done: @escaping (T) -> Void) -> Void) async -> T {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in body(self) { continuation.resume(returning: $0) } }
        }
    }

    /// Like `onLoop`, with the time from the call to `done`, measured on the loop itself (the
    /// test's own task may resume much later when the whole suite runs and the machine is busy).
    func onLoopTimed<T: Sendable>(
        _ body: @escaping @Sendable (RedisFleetMember, _ done: @escaping (T) -> Void) -> Void
    ) async -> (T, Duration) {
        await onLoop { member, done in
            let started = ContinuousClock.now
            body(member) { value in done((value, ContinuousClock.now - started)) }
        }
    }

    /// Waits until every loop's connection is ready, up to `timeout`; false if it never was.
    func waitUntilUp(timeout: Duration = .seconds(10)) async -> Bool {
        let (health, loops) = (fleet.health, group.loops.count)
        return await waitUntil(timeout) { health.readyConnectionCount == loops }
    }

    /// Polls `condition` every 10 ms until it holds or `timeout` passes; whether it held.
    func waitUntil(_ timeout: Duration, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Writes `document` to the fleet registry under `hash`, from this member's loop.
    func publish(_ document: String, hash: SHA256Digest) async {
        await onLoop { (member, done: @escaping (Bool) -> Void) in
            member.documentTier.publish(hash, document: document)
            done(true)
        }
    }

    /// The fleet registry's document for `hash`, looked up until it comes (at most about 0.5 s).
    func awaitDocument(_ hash: SHA256Digest) async throws -> String? {
        for _ in 0..<50 {
            let found: String? = await onLoop { member, done in member.documentTier.lookup(hash, completion: done) }
            if found != nil { return found }
            try await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    func lookup(_ key: CacheKey) async -> CacheEntry? {
        await lookupCounting(key).entry
    }

    /// The entry for `key` and the fleet's purge count the same read saw.
    func lookupCounting(_ key: CacheKey) async -> (entry: CacheEntry?, purges: FleetPurgeCount?) {
        await onLoop { member, done in member.responseTier.lookup(key) { done(($0, $1)) } }
    }

    /// Stores `entry` as a fetch that begins now would: unless a purge comes after this moment.
    func store(_ entry: CacheEntry) async {
        let purges = await lookupCounting(entry.key).purges ?? FleetPurgeCount(0)
        await store(entry, unlessPurgedSince: purges)
    }

    func store(_ entry: CacheEntry, unlessPurgedSince purges: FleetPurgeCount) async {
        await onLoop { member, done in
            member.responseTier.store(entry, unlessPurgedSince: purges)
            done(())
        }
    }

    /// Stores `entry`, then polls until `member` can read it (stores are fire and forget).
    func storeAndWait(_ entry: CacheEntry) async -> Bool {
        await store(entry)
        for _ in 0..<100 {
            if await lookup(entry.key) != nil { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    deinit { group.stopAndWait() }
}

/// Cache entries and keys for the tier tests.
enum RedisTestEntries {
    static let hasher = OpenSSLSHA256()

    static func key(_ name: String) -> CacheKey { CacheKey(digest: hasher.sha256("key:\(name)")) }

    static func entry(
        _ name: String, body: String = #"{"data":{"launch":{"id":"92"}}}"#, ttl: Duration = .seconds(30),
        tags: [String] = ["Launch", "Launch:92"], operationName: String = "GetLaunch", ageMilliseconds: Int64 = 0
    ) -> CacheEntry {
        let bytes = Array(body.utf8)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let wall = Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000 - ageMilliseconds
        return CacheEntry.make(
            key: key(name), body: bytes, contentType: "application/json", etag: CacheEntry.makeETag(body: bytes, hasher: hasher),
            storedAt: .now - .milliseconds(ageMilliseconds), storedAtWallClock: WallClockTime(millisecondsSinceEpoch: wall),
            ttl: ttl, staleWhileRevalidate: .seconds(10), staleIfError: .seconds(60),
            documentDigest: hasher.sha256("query GetLaunch { launch { id } }"), operationName: operationName, tags: tags,
            isPerUser: false)
    }
}
