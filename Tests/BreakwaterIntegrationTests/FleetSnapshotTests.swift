// A fleet's cache snapshot against real processes (docs/FLEET.md, "No purge lost"; docs/OPERATING.md,
// "The cache across restarts"): proxy A, stopped with SIGTERM while proxy B purges an entity, comes
// back with its snapshot and never serves the purged answer, not even to its very first request,
// while what was not purged comes back as a hit; a purge log trimmed past A's position while it
// was down, or a Redis it cannot reach at start, makes it load nothing.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct FleetSnapshotTests {
    static let seven = #"{"id":"7"}"#
    static let eight = #"{"id":"8"}"#

    /// A member of `fleet` that keeps its cache in `snapshot` across restarts.
    static func member(_ fleet: FleetStack, snapshot: String) throws -> ProxyProcess {
        let yaml = fleet.yaml().replacingOccurrences(of: "\ncache:\n", with: "\ncache:\n  snapshot: \"\(snapshot)\"\n")
        return try ProxyProcess(origin: fleet.origin.url, yaml: yaml, logLevel: "notice")
    }

    /// Waits until `proxy` is subscribed to the purge channel and has checked the log once (so
    /// that it knows its position in it).
    static func waitUntilFollowing(_ proxy: ProxyProcess) throws {
        #expect(try eventually(within: .seconds(10)) {
            (try proxy.stats()["redis"] as? [String: Any])?["subscribed"] as? Bool == true
        })
        Thread.sleep(forTimeInterval: 1.2)
    }

    static func stop(_ proxy: ProxyProcess) {
        proxy.process.signal(SIGTERM)
        #expect(proxy.process.waitForExit(timeout: .seconds(10)) == 0)
    }

    static func withSnapshotPath(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("bw-fleet-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.appendingPathComponent("cache.snapshot").path)
    }

    /// A caches launches 7 and 8 and writes them at stop; B caches 7 too.
    static func cacheAndStop(_ fleet: FleetStack, a: ProxyProcess, b: ProxyProcess) throws {
        for variables in [seven, eight] {
            _ = try FleetStack.post(a, FleetStack.detail, variables: variables)
            #expect(try FleetStack.post(a, FleetStack.detail, variables: variables).header("X-Cache") == "HIT")
        }
        #expect(try FleetStack.post(b, FleetStack.detail, variables: seven).status == 200)
        #expect(try FleetStack.post(b, FleetStack.detail, variables: seven).header("X-Cache") == "HIT")
        stop(a)
        #expect(a.process.output.contains { $0.contains("cache snapshot written: 2 entries") })
    }

    /// Purges `Launch:<id>` on `b` and waits until Redis confirmed it (it is in the purge log).
    static func purge(_ id: Int, on b: ProxyProcess, published: Int) throws {
        #expect(try b.admin.post("/purge", json: #"{"type":"Launch","id":"\#(id)"}"#).status == 200)
        #expect(try eventually(within: .seconds(10)) {
            (try b.stats()["redis"] as? [String: Any])?["purges_published"] as? Int ?? 0 >= published
        })
    }

    @Test func aRestartedProxyNeverServesAnEntryPurgedWhileItWasDown() throws {
        try Self.withSnapshotPath { path in
            let fleet = try FleetStack(proxies: 0)
            let a = try Self.member(fleet, snapshot: path)
            let b = try fleet.makeProxy()
            try Self.waitUntilFollowing(a)
            try Self.waitUntilFollowing(b)
            try Self.cacheAndStop(fleet, a: a, b: b)
            try Self.purge(7, on: b, published: 1)

            let restarted = try Self.member(fleet, snapshot: path)
            // The very first request, sent as soon as the listening line appeared.
            let first = try FleetStack.post(restarted, FleetStack.detail, variables: Self.seven)
            #expect(first.status == 200)
            #expect(first.header("X-Cache") == "MISS", "the answer purged on B came back from the snapshot")
            let kept = try FleetStack.post(restarted, FleetStack.detail, variables: Self.eight)
            #expect(kept.header("X-Cache") == "HIT", "an entry nobody purged comes back from the snapshot")
            let stats = try restarted.stats()
            #expect((stats["redis"] as? [String: Any])?["l2_hits"] as? Int == 0, "the hit is the snapshot's copy")
            #expect((stats["snapshot"] as? [String: Any])?["loaded"] as? Int == 2)
            #expect(eventually {
                restarted.process.output.contains {
                    $0.contains("cache snapshot loaded 2 entries") && $0.contains("snapshot.replayed=1")
                }
            })
            // And polled afterwards: launch 7 is only ever the copy fetched after the restart.
            let until = ContinuousClock.now + .seconds(1.5)
            while ContinuousClock.now < until {
                let again = try FleetStack.post(restarted, FleetStack.detail, variables: Self.seven)
                #expect(again.header("X-Cache") != "HIT" || (Int(again.header("Age") ?? "") ?? 0) <= 2)
                Thread.sleep(forTimeInterval: 0.1)
            }
            Self.stop(restarted)
            Self.stop(b)
        }
    }

    @Test func aRestartedProxyWhoseLogPositionWasTrimmedAwayLoadsNothing() throws {
        try Self.withSnapshotPath { path in
            // Small stream nodes so that `MAXLEN ~` trims after a few entries.
            let fleet = try FleetStack(
                proxies: 0, redisArguments: ["--stream-node-max-entries", "2"],
                extraSections: "\n  purge_log: 2")
            let a = try Self.member(fleet, snapshot: path)
            let b = try fleet.makeProxy()
            try Self.waitUntilFollowing(a)
            try Self.waitUntilFollowing(b)
            try Self.cacheAndStop(fleet, a: a, b: b)
            for (index, id) in (100..<120).enumerated() { try Self.purge(id, on: b, published: index + 1) }

            let restarted = try Self.member(fleet, snapshot: path)
            #expect(eventually {
                restarted.process.output.contains {
                    $0.contains("cache snapshot not loaded") && $0.contains("the purge log starts at")
                }
            })
            let snapshot = try #require(try restarted.stats()["snapshot"] as? [String: Any])
            #expect(snapshot["loaded"] as? Int == 0)
            Self.stop(restarted)
            Self.stop(b)
        }
    }

    @Test func aRestartedProxyThatCannotReadTheLogLoadsNothing() throws {
        try Self.withSnapshotPath { path in
            let fleet = try FleetStack(proxies: 0)
            let a = try Self.member(fleet, snapshot: path)
            let b = try fleet.makeProxy()
            try Self.waitUntilFollowing(a)
            try Self.waitUntilFollowing(b)
            try Self.cacheAndStop(fleet, a: a, b: b)
            fleet.redis.kill()

            let started = ContinuousClock.now
            let restarted = try Self.member(fleet, snapshot: path)
            #expect(ContinuousClock.now - started < .seconds(10))
            #expect(eventually {
                restarted.process.output.contains {
                    $0.contains("cache snapshot not loaded") && $0.contains("the purge log could not be read")
                }
            })
            let snapshot = try #require(try restarted.stats()["snapshot"] as? [String: Any])
            #expect(snapshot["loaded"] as? Int == 0)
            let answer = try FleetStack.post(restarted, FleetStack.detail, variables: Self.seven)
            #expect(answer.header("X-Cache") == "MISS")
            Self.stop(restarted)
            Self.stop(b)
        }
    }
}
