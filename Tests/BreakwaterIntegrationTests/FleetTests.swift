// A fleet of real `breakwater` processes sharing a real redis-server (docs/FLEET.md): the
// registry, the L2 with the right Age and X-Cache, one origin request per key across the fleet,
// purges reaching every proxy, and Redis going away without a single client error.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct FleetTests {
    @Test func aRegistrationOnOneProxyIsServedByTheOthersAtOnce() throws {
        let fleet = try FleetStack(proxies: 3)
        try fleet.waitUntilConnected()
        let document = FleetStack.launches
        let register = try fleet.proxies[0].client.post(
            "/graphql", json: APQ.registeringPOST(document, operationName: "GetLaunches", variables: #"{"pageSize":2}"#))
        #expect(register.status == 200)
        for proxy in fleet.proxies.dropFirst() {
            let hashed = try proxy.client.get(APQ.hashedGET(document, operationName: "GetLaunches", variables: #"{"pageSize":2}"#))
            #expect(hashed.status == 200)
            #expect(firstError(hashed).code == nil, "\(hashed)")
            #expect(hashed.data?["launches"] != nil)
        }
        let stats = try fleet.proxies[1].stats()["redis"] as? [String: Any]
        #expect(stats?["registry_hits"] as? Int == 1)
    }

    @Test func aMissOnOneProxyIsAnL2HitOnAnotherWithItsAge() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        let first = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"7"}"#)
        #expect(first.header("X-Cache") == "MISS")
        // The entry has landed in Redis (stores are fire and forget), and is a second old: the
        // first proxy's own copy, asked until its Age is 1, tells when (asking it changes nothing
        // on the second proxy).
        #expect(try eventually { try fleet.entryKeys().count == 1 })
        #expect(
            try eventually(within: .seconds(5), every: .milliseconds(100)) {
                let own = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"7"}"#)
                return own.header("X-Cache") == "HIT" && (Int(own.header("Age") ?? "") ?? 0) >= 1
            })
        let second = try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#)
        #expect(second.status == 200)
        #expect(second.header("X-Cache") == "HIT")
        #expect(second.body == first.body)
        #expect(second.header("ETag") == first.header("ETag"))
        let age = Int(second.header("Age") ?? "") ?? -1
        #expect(age >= 1 && age <= 2, "Age counts from the first proxy's fetch: \(age)")
        #expect(second.header("Cache-Control") == first.header("Cache-Control"))
        #expect(try fleet.originRequests("GetLaunchDetail") == 1)
        // Now local on the second proxy too.
        #expect(try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#).header("X-Cache") == "HIT")
        let redis = try fleet.proxies[1].stats()["redis"] as? [String: Any]
        #expect(redis?["l2_hits"] as? Int == 1)
    }

    @Test func aBurstOfThirtyMissesOverThreeProxiesReachesTheOriginOnce() throws {
        let fleet = try FleetStack(proxies: 3)
        try fleet.waitUntilConnected()
        let proxies = fleet.proxies
        let results = Collected<HTTPClientResponse?>()
        concurrently(30) { index in
            results.append(try? FleetStack.post(proxies[index % 3], FleetStack.slow))
        }
        let all = results.all
        #expect(all.count == 30)
        #expect(all.allSatisfy { $0?.status == 200 }, "\(all.map { $0?.status ?? -1 })")
        #expect(Set(all.map { $0?.body ?? [] }).count == 1)
        #expect(try fleet.originRequests("Slow") == 1)
    }

    @Test(arguments: [
        (#"{"type":"Launch","id":"7"}"#, true),
        (#"{"type":"Launch"}"#, true),
        (#"{"operation":"GetLaunchDetail"}"#, true),
        (#"{"all":true}"#, true),
        (#"{"type":"Launch","id":"7","soft":true}"#, false),
        (#"{"all":true,"soft":true}"#, false),
    ])
    func aPurgeOnOneProxyReachesTheOthersAndTheL2(purge: String, hard: Bool) throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        for proxy in fleet.proxies {
            _ = try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"7"}"#)
        }
        #expect(try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#).header("X-Cache") == "HIT")
        let before = try fleet.originRequests("GetLaunchDetail")
        let purged = try fleet.proxies[0].admin.post("/purge", json: purge)
        #expect(purged.status == 200)
        // The purge travels over Redis pub/sub: on a loaded machine it may take a while (a Redis
        // call that times out is sent again from the outbox a second later). A HIT in the
        // meantime changes nothing, so ask until the entry is gone (at most 15 s).
        var after = try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#)
        let deadline = Date().addingTimeInterval(15)
        while after.header("X-Cache") == "HIT" && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            after = try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#)
        }
        #expect(after.status == 200)
        // Hard: gone locally and from the L2, so fetched again; soft: stale, served while refreshed.
        #expect(after.header("X-Cache") == (hard ? "MISS" : "STALE"), "\(purge)")
        #expect(try eventually { try fleet.originRequests("GetLaunchDetail") == before + 1 }, "\(purge)")
    }

    @Test func aPurgeByHashReachesTheOthers() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        for proxy in fleet.proxies { _ = try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"8"}"#) }
        let purged = try fleet.proxies[0].admin.post("/purge", json: #"{"hash":"\#(APQ.hash(FleetStack.detail))"}"#)
        #expect(purged.status == 200)
        // The purge reaches proxy 1 over pub/sub: hits until then, then a miss.
        #expect(try eventually { try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"8"}"#).header("X-Cache") == "MISS" })
    }

    @Test func redisKilledAndRestartedMidTrafficCausesNoClientError() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        let proxies = fleet.proxies
        let stop = ManagedFlag()
        let results = Collected<Int>()
        let clients = DispatchGroup()
        for index in 0..<4 {
            clients.enter()
            Thread {
                var round = 0
                while !stop.isSet {
                    let response = try? FleetStack.post(proxies[index % 2], FleetStack.detail, variables: #"{"id":"\#(round % 20)"}"#)
                    results.append(response?.status ?? -1)
                    round += 1
                }
                clients.leave()
            }.start()
        }
        // Traffic before, during and after the outage: each phase lasts until both proxies have
        // seen its state and the clients have had 20 more answers in it.
        func answersGrow(by count: Int) -> Bool {
            let from = results.all.count
            return eventually(within: .seconds(20)) { results.all.count >= from + count }
        }
        func everyProxy(connected: Bool) throws -> Bool {
            try proxies.allSatisfy { try ($0.stats()["redis"] as? [String: Any])?["connected"] as? Bool == connected }
        }
        #expect(answersGrow(by: 20))
        fleet.redis.kill()
        #expect(try eventually { try everyProxy(connected: false) }, "the proxies saw Redis go")
        #expect(answersGrow(by: 20))
        try fleet.redis.restart()
        #expect(try eventually(within: .seconds(10)) { try everyProxy(connected: true) }, "the proxies saw Redis return")
        #expect(answersGrow(by: 20))
        stop.set()
        clients.wait()
        let statuses = results.all
        #expect(statuses.count > 20)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        // Shares again by itself: connected, and a new entry reaches the other proxy through Redis.
        // "connected" means one connection of the process is; each loop's own connection comes
        // back on its own backoff (at most 5 s), so a new entry is tried until one is shared.
        try fleet.waitUntilConnected()
        let deadline = ContinuousClock.now + .seconds(12)
        var attempt = 0
        var shared = false
        while !shared, ContinuousClock.now < deadline {
            attempt += 1
            let variables = #"{"id":"\#(900 + attempt)"}"#
            let stored = try fleet.entryKeys().count
            #expect(try FleetStack.post(proxies[0], FleetStack.detail, variables: variables).header("X-Cache") == "MISS")
            // Tried on the other proxy once the store has landed (or not within a second: the
            // first proxy's loop may not be back yet; the next attempt will tell).
            _ = try eventually(within: .seconds(1)) { try fleet.entryKeys().count > stored }
            shared = try FleetStack.post(proxies[1], FleetStack.detail, variables: variables).header("X-Cache") == "HIT"
        }
        #expect(shared, "no entry stored by one proxy reached the other within 12 s of Redis's return (\(attempt) tried)")
    }

    @Test func aRestartedProxyServesKnownHashesAtOnce() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        let document = FleetStack.detail
        let register = try fleet.proxies[0].client.post(
            "/graphql", json: APQ.registeringPOST(document, operationName: "GetLaunchDetail", variables: #"{"id":"3"}"#))
        #expect(register.status == 200)
        // Both proxies keep their registry in memory only: a restart forgets everything local.
        try fleet.restartProxy(0)
        try fleet.restartProxy(1)
        try fleet.waitUntilConnected()
        for proxy in fleet.proxies {
            let hashed = try proxy.client.get(APQ.hashedGET(document, operationName: "GetLaunchDetail", variables: #"{"id":"4"}"#))
            #expect(hashed.status == 200)
            #expect(firstError(hashed).code == nil, "no PersistedQueryNotFound after a restart: \(hashed)")
        }
    }

    @Test func aFullRedisCausesNoClientError() throws {
        let fleet = try FleetStack(
            proxies: 2, redisArguments: ["--maxmemory", "1mb", "--maxmemory-policy", "noeviction"])
        try fleet.waitUntilConnected()
        try fleet.redis.cli("DEBUG", "POPULATE", "3000", "fill", "1000")
        for round in 0..<20 {
            let response = try FleetStack.post(fleet.proxies[round % 2], FleetStack.detail, variables: #"{"id":"\#(round)"}"#)
            #expect(response.status == 200)
            #expect(firstError(response).code == nil)
            let document = "query Full\(round) { launch(id: \"\(round)\") { id } }"
            let registered = try fleet.proxies[round % 2].client.post(
                "/graphql", json: APQ.registeringPOST(document, operationName: "Full\(round)"))
            #expect(registered.status == 200)
        }
        let redis = try fleet.proxies[0].stats()["redis"] as? [String: Any]
        #expect((redis?["errors"] as? Int ?? 0) > 0, "Redis refused the writes (OOM)")
        let warned = fleet.proxies.flatMap { $0.process.output }.filter { $0.contains("redis refuses writes") }
        #expect(!warned.isEmpty, "an OOM reply is logged at warning")
    }

    @Test func aProxyStartedWithRedisUnreachableServesNormally() throws {
        let unreachable = "redis://127.0.0.1:\(FreePort.allocate())"
        let fleet = try FleetStack(proxies: 1, redisURL: unreachable)
        let started = ContinuousClock.now
        let first = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"5"}"#)
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "MISS")
        #expect(try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"5"}"#).header("X-Cache") == "HIT")
        #expect(ContinuousClock.now - started < .seconds(2))
        let stats = try fleet.proxies[0].stats()["redis"] as? [String: Any]
        #expect(stats?["connected"] as? Bool == false)
        #expect(stats?["connections_ready"] as? Int == 0)
        #expect(stats?["subscribed"] as? Bool == false)
        let metrics = String(decoding: try fleet.proxies[0].admin.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("breakwater_redis_up 0"))
        #expect(metrics.contains("breakwater_redis_subscribed 0"))
        #expect(fleet.proxies[0].process.output.filter { $0.contains("redis unreachable") }.count == 1)
    }

    @Test func statsAndMetricsShowTheSharedTier() throws {
        let fleet = try FleetStack(proxies: 1)
        try fleet.waitUntilConnected()
        _ = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"1"}"#)
        let redis = try #require(try fleet.proxies[0].stats()["redis"] as? [String: Any])
        #expect(redis["connected"] as? Bool == true)
        #expect(redis["subscribed"] as? Bool == true)
        let loops = try #require(redis["connections"] as? Int)
        #expect(loops >= 1)
        #expect(redis["connections_ready"] as? Int == loops)
        for key in ["l2_hits", "l2_misses", "registry_hits", "errors"] { #expect(redis[key] is Int, "\(key)") }
        #expect(redis["l2_misses"] as? Int == 1)
        let latency = try #require(redis["latency_ms"] as? [String: Any])
        #expect(latency["p50"] != nil && latency["p99"] != nil)
        let metrics = String(decoding: try fleet.proxies[0].admin.get("/metrics").body, as: UTF8.self)
        #expect(metrics.contains("breakwater_redis_up 1"))
        #expect(metrics.contains("breakwater_redis_subscribed 1"))
        #expect(metrics.contains("breakwater_redis_connections_ready \(loops)"))
        #expect(metrics.contains("breakwater_redis_l2_misses_total 1"))
        #expect(metrics.contains("breakwater_redis_duration_seconds_count"))
        #expect(fleet.proxies[0].process.output.filter { $0.contains("redis connected") }.count == 1)
    }
}

/// A flag client threads poll to know when to stop.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
