// No purge lost when Redis misbehaves (docs/FLEET.md, "No purge lost"): a fleet of real
// `breakwater` processes on a real redis-server that the test kills and restarts empty, or
// pauses (SIGSTOP/SIGCONT). Each scenario ends with no proxy serving a purged entry as fresh and
// the registry complete; the figures they print are the ones docs/FLEET.md quotes.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct PurgeLogTests {
    static let variables = #"{"id":"7"}"#

    /// Caches the detail of launch 7 on every proxy, then waits until every local copy is at
    /// least 3 s old, so that a purged copy (older than the purge) is told from a refetched one.
    static func cacheEverywhere(_ fleet: FleetStack, variables: String = variables) throws {
        for proxy in fleet.proxies { _ = try FleetStack.post(proxy, FleetStack.detail, variables: variables) }
        let deadline = ContinuousClock.now + .seconds(15)
        for proxy in fleet.proxies {
            var age = 0
            while age < 3, ContinuousClock.now < deadline {
                let response = try FleetStack.post(proxy, FleetStack.detail, variables: variables)
                #expect(response.header("X-Cache") == "HIT")
                age = Int(response.header("Age") ?? "") ?? 0
                if age < 3 { Thread.sleep(forTimeInterval: 0.2) }
            }
            #expect(age >= 3)
        }
    }

    /// Whether `response` is the copy cached before a purge made `sincePurge` ago, served as fresh:
    /// a refetched copy is at most `sincePurge` old, a purged one at least 3 s older.
    static func isPurgedCopyServedFresh(_ response: HTTPClientResponse, sincePurge: Duration) -> Bool {
        guard response.header("X-Cache") == "HIT", let age = Int(response.header("Age") ?? "") else { return false }
        return Double(age) >= Double(sincePurge.components.seconds) + 2
    }

    /// Whether `proxy` is stopped by a signal (state T in /proc/<pid>/stat).
    static func isStopped(_ proxy: ProxyProcess) -> Bool {
        guard let pid = proxy.process.processIdentifier,
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: end)...].split(separator: " ").first == "T"
    }

    /// Polls every proxy until none serves the purged copy as fresh; the time it took, or nil.
    static func waitUntilNoProxyServesThePurgedCopy(
        _ fleet: FleetStack, purgedAt: ContinuousClock.Instant, variables: String = variables,
        timeout: Duration = .seconds(15)
    ) throws -> Duration? {
        let started = ContinuousClock.now
        let deadline = started + timeout
        var remaining = Set(fleet.proxies.indices)
        var last: [Int: HTTPClientResponse] = [:]
        while !remaining.isEmpty, ContinuousClock.now < deadline {
            for index in remaining.sorted() {
                let response = try FleetStack.post(fleet.proxies[index], FleetStack.detail, variables: variables)
                last[index] = response
                #expect(response.status == 200)
                if !isPurgedCopyServedFresh(response, sincePurge: ContinuousClock.now - purgedAt) {
                    remaining.remove(index)
                }
            }
            if !remaining.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(
            remaining.isEmpty,
            """
            proxies \(remaining.sorted()) still serve the purged entry as fresh: \(remaining.map { last[$0].map { "\($0)" } ?? "" })
            \(remaining.map { fleet.proxies[$0].process.output.filter { $0.contains("redis") } })
            """)
        return remaining.isEmpty ? ContinuousClock.now - started : nil
    }

    /// Registers `count` documents, spread over the proxies; returns them.
    static func register(_ count: Int, on fleet: FleetStack) throws -> [String] {
        var documents: [String] = []
        for number in 0..<count {
            let document = "query Registered\(number) { launch(id: \"\(number)\") { id } }"
            let proxy = fleet.proxies[number % fleet.proxies.count]
            let response = try proxy.client.post(
                "/graphql", json: APQ.registeringPOST(document, operationName: "Registered\(number)"))
            #expect(response.status == 200)
            documents.append(document)
        }
        return documents
    }

    /// Polls a proxy until it serves every document by hash alone; the time it took, or nil.
    static func waitUntilKnown(_ documents: [String], on proxy: ProxyProcess, timeout: Duration = .seconds(10)) throws
        -> Duration?
    {
        let started = ContinuousClock.now
        var unknown = documents
        while !unknown.isEmpty, ContinuousClock.now < started + timeout {
            unknown = try unknown.filter { document in
                let name = String(document.split(separator: " ")[1])
                let response = try proxy.client.get(APQ.hashedGET(document, operationName: name))
                return firstError(response).code == "PERSISTED_QUERY_NOT_FOUND"
            }
            if !unknown.isEmpty { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(unknown.isEmpty, "\(unknown.count) of \(documents.count) hashes still unknown")
        return unknown.isEmpty ? ContinuousClock.now - started : nil
    }

    static func redisStats(_ proxy: ProxyProcess) throws -> [String: Any] {
        (try proxy.stats()["redis"] as? [String: Any]) ?? [:]
    }

    @Test func aPurgeMadeWhileRedisIsDownReachesEveryProxyAfterItRestartsEmptyAndTheRegistryComesBack() throws {
        let fleet = try FleetStack(proxies: 3)
        try fleet.waitUntilConnected()
        let documents = try Self.register(12, on: fleet)
        try Self.cacheEverywhere(fleet)
        fleet.redis.kill()
        let purgedAt = ContinuousClock.now
        let purged = try fleet.proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#)
        #expect(purged.status == 200)
        // Its own purge applies at once, whatever Redis does.
        let own = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: Self.variables)
        #expect(!Self.isPurgedCopyServedFresh(own, sincePurge: ContinuousClock.now - purgedAt))
        try fleet.redis.restart()
        let back = ContinuousClock.now
        let settled = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt)
        try fleet.waitUntilConnected()
        // A proxy that never knew the documents finds every one in the restarted Redis.
        let newcomer = try fleet.makeProxy()
        let known = try Self.waitUntilKnown(documents, on: newcomer)
        let written = try fleet.proxies.map { try Self.redisStats($0)["documents_written_back"] as? Int ?? 0 }
        #expect(written.reduce(0, +) >= documents.count, "\(written)")
        let drops = try fleet.proxies.map { try Self.redisStats($0)["cache_drops"] as? Int ?? 0 }
        #expect(drops[1] >= 1 && drops[2] >= 1, "Redis came back empty: the others dropped their caches \(drops)")
        let pending = try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int
        #expect(pending == 0, "the purge made while Redis was down was applied once it came back")
        print(
            "figures: restart-empty: no purged copy served \(settled.map { "\($0)" } ?? "-") after Redis came back "
                + "(\(ContinuousClock.now - back) until now); registry complete on a new proxy after \(known.map { "\($0)" } ?? "-"); "
                + "\(fleet.proxies[1].process.output.filter { $0.contains("purge log") || $0.contains("written back") })")
    }

    @Test func aPurgeMadeWhileRedisIsPausedIsNeitherLostNorReadBackFromTheL2() throws {
        let fleet = try FleetStack(proxies: 3)
        try fleet.waitUntilConnected()
        try Self.cacheEverywhere(fleet)
        #expect(try fleet.entryKeys().count == 1, "the entry is in the L2")
        fleet.redis.pause()
        let purgedAt = ContinuousClock.now
        let purged = try fleet.proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#)
        #expect(purged.status == 200)
        // Redis stays frozen, with every connection open, until every proxy has found its checks
        // unanswered for over a second and marked its local entries stale (about 2 s), and calls
        // of the purging proxy have run out of time.
        let markedStale = "local entries are served STALE until refreshed"
        #expect(
            try eventually(within: .seconds(15), every: .milliseconds(50)) {
                try fleet.proxies.allSatisfy { proxy in proxy.process.output.contains { $0.contains(markedStale) } }
                    && (Self.redisStats(fleet.proxies[0])["timeouts"] as? Int ?? 0) >= 1
            })
        #expect(try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int == 1, "the purge waits for Redis")
        let frozen = ContinuousClock.now - purgedAt
        fleet.redis.resume()
        // Right after: the purging proxy must not read the entry back from the L2.
        let own = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: Self.variables)
        #expect(!Self.isPurgedCopyServedFresh(own, sincePurge: ContinuousClock.now - purgedAt), "\(own)")
        let settled = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt)
        // Replayed from the log (or heard on the channel once Redis went on), never lost.
        let deadline = ContinuousClock.now + .seconds(10)
        var pending = -1
        while pending != 0, ContinuousClock.now < deadline {
            pending = try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int ?? -1
            if pending != 0 { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(pending == 0)
        for proxy in fleet.proxies.dropFirst() {
            let stats = try Self.redisStats(proxy)
            #expect((stats["purges_applied"] as? Int ?? 0) >= 1, "\(stats)")
        }
        let published = try Self.redisStats(fleet.proxies[0])["purges_published"] as? Int
        #expect(published == 1, "applied once in Redis, however many times it was sent")
        let lines = fleet.proxies[1].process.output.filter { $0.contains("purge log") }
        print("figures: paused \(frozen): no purged copy served \(settled.map { "\($0)" } ?? "-") after SIGCONT; \(lines)")
    }

    /// A failover to a replica that had not received the last purge, or a Redis restored from an
    /// older copy: the purge's log entry and its deletion of the L2 entry are gone, the entry is
    /// back. The proxies find the log short of the purge they applied; dropping their local caches
    /// is not enough, since the next local miss reads the entry back from the L2 (served as fresh for
    /// the rest of its TTL, found by the soak): they leave the whole fleet tier behind.
    @Test func aRedisThatLostTheLastPurgeDoesNotServeTheEntriesItDeleted() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        try Self.cacheEverywhere(fleet)
        let keys = try fleet.entryKeys()
        #expect(keys.count == 1, "the entry is in the L2")
        let key = try #require(keys.first)
        let kept = fleet.prefix + "kept"
        #expect(try fleet.redis.cli("COPY", key, kept) == "1")
        let purgedAt = ContinuousClock.now
        #expect(try fleet.proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#).status == 200)
        #expect(
            try eventually(within: .seconds(10), every: .milliseconds(50)) {
                try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int == 0
                    && (try Self.redisStats(fleet.proxies[1])["purges_applied"] as? Int ?? 0) >= 1
                    && (try fleet.entryKeys()).isEmpty
            })
        // Past the time the purging proxy hides L2 entries stored before its purge.
        Thread.sleep(forTimeInterval: 3)
        // Redis loses the purge: its log entry and its deletion.
        let last = try fleet.redis.cli("XREVRANGE", fleet.prefix + "purges", "+", "-", "COUNT", "1")
        let id = try #require(last.split(separator: "\n").first.map(String.init))
        #expect(try fleet.redis.cli("XDEL", fleet.prefix + "purges", id) == "1")
        #expect(try fleet.redis.cli("COPY", kept, key) == "1")
        let lost = ContinuousClock.now
        let settled = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt, timeout: .seconds(10))
        #expect(settled != nil)
        // And it stays gone: the fleet moved to a generation where the entry is not.
        for _ in 0..<10 {
            for proxy in fleet.proxies {
                let response = try FleetStack.post(proxy, FleetStack.detail, variables: Self.variables)
                #expect(!Self.isPurgedCopyServedFresh(response, sincePurge: ContinuousClock.now - purgedAt), "\(response)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let leaving = "Redis lost purges applied here; leaving the fleet tier's entries behind"
        #expect(fleet.proxies.contains { $0.process.output.contains { $0.contains(leaving) } })
        #expect(try fleet.redis.cli("GET", "\(fleet.prefix)gen") != "", "a purge of everything moved the generation")
        print("figures: lost purge: no purged copy served \(settled.map { "\($0)" } ?? "-") after Redis lost it (\(ContinuousClock.now - lost) until now)")
    }

    @Test func aPurgeOfEverythingWorksAfterRedisRestartsEmptyBetweenTwo() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        #expect(try fleet.proxies[0].admin.post("/purge", json: #"{"all":true}"#).status == 200)
        let deadline = ContinuousClock.now + .seconds(5)
        while try fleet.proxies.contains(where: { try Self.redisStats($0)["generation"] as? Int != 1 }),
            ContinuousClock.now < deadline
        {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(try Self.redisStats(fleet.proxies[1])["generation"] as? Int == 1)
        try fleet.redis.restart()
        try fleet.waitUntilConnected()
        // The generation in Redis is raised back to the fleet's, never restarted from 0.
        var shared = ""
        while shared != "1", ContinuousClock.now < deadline + .seconds(5) {
            shared = try fleet.redis.cli("GET", "\(fleet.prefix)gen")
            if shared != "1" { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(shared == "1")
        // An entry cached after the restart (shared through the L2 under the raised generation)...
        try Self.cacheEverywhere(fleet, variables: #"{"id":"11"}"#)
        // ...is served fresh by no proxy after the second purge of everything.
        let purgedAt = ContinuousClock.now
        #expect(try fleet.proxies[1].admin.post("/purge", json: #"{"all":true}"#).status == 200)
        _ = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt, variables: #"{"id":"11"}"#)
        #expect(try fleet.redis.cli("GET", "\(fleet.prefix)gen") == "2")
        let metrics = String(decoding: try fleet.proxies[1].admin.get("/metrics").body, as: UTF8.self)
        for line in [
            "breakwater_redis_generation 2", "breakwater_redis_purges_published_total 1", "breakwater_redis_purges_pending 0",
            "breakwater_redis_purges_applied_total 1", "breakwater_redis_purges_replayed_total ",
            "breakwater_redis_cache_drops_total ", "breakwater_redis_documents_written_back_total ",
        ] {
            #expect(metrics.contains(line), "\(line)")
        }
    }

    @Test func proxiesCutOffFromThePurgeChannelReplayWhatTheyMissedFromTheLog() throws {
        let fleet = try FleetStack(proxies: 3)
        try fleet.waitUntilConnected()
        try Self.cacheEverywhere(fleet)
        // Proxies 1 and 2 are frozen, and Redis closes every subscriber: the purge is published
        // while they have none, so only the log can tell them.
        for proxy in fleet.proxies.dropFirst() { proxy.process.signal(SIGSTOP) }
        defer { for proxy in fleet.proxies.dropFirst() { proxy.process.signal(SIGCONT) } }
        // Stopped before Redis drops them: none may subscribe again before the purge.
        #expect(eventually { fleet.proxies.dropFirst().allSatisfy(Self.isStopped) })
        try fleet.redis.cli("CLIENT", "KILL", "TYPE", "pubsub")
        let purgedAt = ContinuousClock.now
        #expect(try fleet.proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#).status == 200)
        var logged = ""
        while !logged.contains("Launch:7"), ContinuousClock.now < purgedAt + .seconds(5) {
            logged = try fleet.redis.cli("XRANGE", "\(fleet.prefix)purges", "-", "+")
            if !logged.contains("Launch:7") { Thread.sleep(forTimeInterval: 0.02) }
        }
        #expect(logged.contains("Launch:7"), "the purge is in the log: \(logged)")
        let resumed = ContinuousClock.now
        for proxy in fleet.proxies.dropFirst() { proxy.process.signal(SIGCONT) }
        let settled = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt)
        for proxy in fleet.proxies.dropFirst() {
            let stats = try Self.redisStats(proxy)
            #expect((stats["purges_replayed"] as? Int ?? 0) >= 1, "\(stats)")
            #expect(stats["cache_drops"] as? Int == 0, "the log reached back: nothing dropped")
        }
        let lines = fleet.proxies[1].process.output.filter { $0.contains("purge log") }
        print(
            "figures: proxies cut off: no purged copy served \(settled.map { "\($0)" } ?? "-") after they resumed "
                + "(\(ContinuousClock.now - resumed) until now); \(lines)")
    }

    @Test func anEntryRedisHasNotDeletedYetIsNotReadBackByTheProxyThatPurgedIt() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        try Self.cacheEverywhere(fleet)
        // Redis refuses scripts (so the purge's delete) but still answers reads: the L2 keeps the
        // entry that proxy 0 has purged.
        try fleet.redis.cli("ACL", "SETUSER", "default", "-eval")
        let purgedAt = ContinuousClock.now
        #expect(try fleet.proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#).status == 200)
        #expect(try fleet.entryKeys().count == 1)
        for _ in 0..<4 {
            let response = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: Self.variables)
            #expect(
                !Self.isPurgedCopyServedFresh(response, sincePurge: ContinuousClock.now - purgedAt),
                "read back from the L2: \(response)")
        }
        #expect(try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int == 1)
        // The other proxy heard of it on the channel all the same.
        _ = try Self.waitUntilNoProxyServesThePurgedCopy(fleet, purgedAt: purgedAt)
        // Once Redis takes scripts again, the purge reaches the L2 and the log.
        try fleet.redis.cli("ACL", "SETUSER", "default", "+eval")
        let deadline = ContinuousClock.now + .seconds(10)
        var pending = -1
        while pending != 0, ContinuousClock.now < deadline {
            pending = try Self.redisStats(fleet.proxies[0])["purges_pending"] as? Int ?? -1
            if pending != 0 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(pending == 0)
        #expect(try fleet.redis.cli("XRANGE", "\(fleet.prefix)purges", "-", "+").contains("Launch:7"))
    }

    @Test func withThePurgeLogOffPurgesStillTravelOnTheChannelAndNothingIsLogged() throws {
        let fleet = try FleetStack(proxies: 0)
        let proxies = try (0..<2).map { _ in
            try ProxyProcess(origin: fleet.origin.url, yaml: fleet.yaml() + "\n  purge_log: 0", logLevel: "notice")
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while try !proxies.allSatisfy({ try Self.redisStats($0)["subscribed"] as? Bool == true }),
            ContinuousClock.now < deadline
        {
            Thread.sleep(forTimeInterval: 0.02)
        }
        for proxy in proxies { _ = try FleetStack.post(proxy, FleetStack.detail, variables: Self.variables) }
        #expect(try FleetStack.post(proxies[1], FleetStack.detail, variables: Self.variables).header("X-Cache") == "HIT")
        #expect(try proxies[0].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#).status == 200)
        var answer: String?
        repeat {
            answer = try FleetStack.post(proxies[1], FleetStack.detail, variables: Self.variables).header("X-Cache")
            if answer == "HIT" { Thread.sleep(forTimeInterval: 0.05) }
        } while answer == "HIT" && ContinuousClock.now < deadline
        #expect(answer == "MISS")
        #expect(try fleet.redis.cli("EXISTS", "\(fleet.prefix)purges") == "0")
        #expect(try Self.redisStats(proxies[0])["purges_published"] as? Int == 1)
    }
}
