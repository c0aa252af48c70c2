// The Redis trust boundary (docs/FLEET.md): an entry forged straight into a real redis-server,
// well-formed but with its body changed, is served by a fleet without `redis.signing_key` and
// refused (fetched from the origin instead, counted, logged) by a fleet with one; registry
// documents planted without the key are refused the same way.

import BreakwaterCore
import BreakwaterServer
import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct RedisSigningTests {
    static let key = "test-fleet-signing-key-0123456789"

    /// Rewrites the `site` of every entry in Redis to as many X's, in place (same length, same TTL):
    /// the well-formed entry a writer to Redis without the key would make. Returns the rewrites.
    private static func forgeSites(in fleet: FleetStack) throws -> Int {
        let script = """
            local n = 0
            for _, key in ipairs(KEYS) do
              local value = redis.call('GET', key)
              local forged, count = string.gsub(value, '"site":"([^"]*)"', function(site)
                return '"site":"' .. string.rep('X', #site) .. '"'
              end)
              redis.call('SET', key, forged, 'KEEPTTL')
              n = n + count
            end
            return n
            """
        let keys = try fleet.entryKeys()
        return Int(try fleet.redis.cli(["EVAL", script, String(keys.count)] + keys)) ?? -1
    }

    /// Proxy 0 fetches launch 7 and stores it in the L2; waits until the entry is in Redis.
    private static func storeGenuineEntry(in fleet: FleetStack) throws -> HTTPClientResponse {
        let first = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"7"}"#)
        #expect(first.header("X-Cache") == "MISS")
        let deadline = ContinuousClock.now + .seconds(5)
        while try fleet.entryKeys().isEmpty && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try fleet.entryKeys().count == 1)
        return first
    }

    @Test func withoutASigningKeyAForgedEntryIsServedByTheFleet() throws {
        let fleet = try FleetStack(proxies: 2)
        try fleet.waitUntilConnected()
        let genuine = try Self.storeGenuineEntry(in: fleet)
        #expect(try Self.forgeSites(in: fleet) == 1)
        let served = try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#)
        // The boundary this key closes: whoever can write to Redis decides what the fleet answers.
        #expect(served.header("X-Cache") == "HIT")
        #expect(served.text.contains(#""site":"XXX"#), "\(served.text)")
        #expect(served.body != genuine.body)
        #expect(try fleet.originRequests("GetLaunchDetail") == 1)
    }

    @Test func withASigningKeyAForgedEntryIsRefusedCountedAndFetchedFromTheOrigin() throws {
        let fleet = try FleetStack(proxies: 2, signingKey: Self.key)
        try fleet.waitUntilConnected()
        let genuine = try Self.storeGenuineEntry(in: fleet)
        // The genuine, signed entry is shared as before.
        #expect(try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"8"}"#).status == 200)
        // Its store lands in Redis (fire and forget): two entries, no more.
        #expect(try eventually { try fleet.entryKeys().count >= 2 })
        #expect(try fleet.entryKeys().count == 2)
        #expect(try Self.forgeSites(in: fleet) == 2)

        let served = try FleetStack.post(fleet.proxies[1], FleetStack.detail, variables: #"{"id":"7"}"#)
        #expect(served.status == 200)
        #expect(served.header("X-Cache") == "MISS", "a forged entry must read as a miss")
        #expect(served.body == genuine.body)
        #expect(!served.text.contains("XXX"))
        #expect(try fleet.originRequests("GetLaunchDetail") == 3)

        let redis = try #require(try fleet.proxies[1].stats()["redis"] as? [String: Any])
        #expect(redis["rejected"] as? Int == 1, "\(redis)")
        #expect(redis["l2_hits"] as? Int == 0)
        #expect(redis["errors"] as? Int == 0)
        let metrics = try fleet.proxies[1].admin.get("/metrics").text
        #expect(metrics.contains("breakwater_redis_rejected_total 1"))
        let warning = try fleet.proxies[1].process.waitForLine(containing: "redis value rejected", timeout: .seconds(5))
        #expect(warning.contains("\(fleet.prefix)g0:e:"))

        // A fresh proxy 0 reads the forged launch 8 from Redis: refused too.
        try fleet.restartProxy(0)
        try fleet.waitUntilConnected()
        let again = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"8"}"#)
        #expect(again.header("X-Cache") == "MISS")
        #expect(!again.text.contains("XXX"))
        let fresh = try #require(try fleet.proxies[0].stats()["redis"] as? [String: Any])
        #expect(fresh["rejected"] as? Int == 1)
        // What proxy 1 stored after its refusal is signed again and shared.
        let refetched = try FleetStack.post(fleet.proxies[0], FleetStack.detail, variables: #"{"id":"7"}"#)
        #expect(refetched.header("X-Cache") == "HIT")
        #expect(refetched.body == genuine.body)
    }

    @Test func documentsPlantedWithoutTheKeyAreRefusedAndSignedOnesShared() async throws {
        let redis = try RedisServerProcess()
        let a = try RedisFleetMember(url: redis.url, signingKey: Self.key)
        let b = try RedisFleetMember(url: redis.url, signingKey: Self.key)
        #expect(await a.waitUntilUp())
        #expect(await b.waitUntilUp())
        let document = "query Signed { launches { cursor } }"
        let hash = RedisTestEntries.hasher.sha256(document)
        await a.publish(document, hash: hash)
        #expect(try await b.awaitDocument(hash) == document)

        // A document written straight into Redis: its hash is right, its signature missing.
        let planted = "query Planted { launches { cursor } }"
        let plantedHash = RedisTestEntries.hasher.sha256(planted)
        try redis.cli("SET", "bwtest:doc:\(plantedHash.hex)", planted)
        let refused: String? = await b.onLoop { member, done in
            member.documentTier.lookup(plantedHash, completion: done)
        }
        #expect(refused == nil)
        // And a signed one copied to another hash's key.
        try redis.cli("COPY", "bwtest:doc:\(hash.hex)", "bwtest:doc:\(plantedHash.hex)", "REPLACE")
        let moved: String? = await b.onLoop { member, done in
            member.documentTier.lookup(plantedHash, completion: done)
        }
        #expect(moved == nil)
        let statistics = b.fleet.health.statistics
        #expect(statistics.rejected == 2)
        #expect(statistics.registryHits == 1)
    }
}
