// What a fleet learns about its origin, shared through Redis (docs/FLEET.md, "What is shared"):
// a proxy that cannot introspect the origin uses the schema another proxy introspected, and an
// operation one proxy saw answering a per-user type is bypassed by the others before they fetch it
// (with `redis.signing_key`, only when that proxy signed it).

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct FleetKnowledgeTests {
    /// A schema-aware fleet member on `redis` under `prefix`, with `cache` lines added.
    private func member(
        origin: DemoOriginProcess, redis: RedisServerProcess, prefix: String, cache: String = "",
        signingKey: String? = nil
    ) throws -> ProxyProcess {
        let yaml = """
            persisted_queries:
              store: ""
            origin:
              schema: auto
            cache:
            \(cache)
              rules:
                - operation: GetLaunchSite
                  ttl: 5m
            redis:
              url: \(redis.url)
              key_prefix: "\(prefix)"
              timeout: 500ms
            """ + (signingKey.map { "\n  signing_key: \"\($0)\"" } ?? "") + "\n"
        return try ProxyProcess(origin: origin.url, yaml: yaml, logLevel: "info")
    }

    @Test func aProxyThatCannotIntrospectUsesTheFleetsLastGoodSchema() throws {
        let origin = try DemoOriginProcess()
        let redis = try RedisServerProcess()
        let prefix = "bwknow-\(UUID().uuidString.prefix(8)):"
        let a = try member(origin: origin, redis: redis, prefix: prefix)
        _ = try a.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(20))
        #expect(holds(within: .seconds(10)) { (try? redis.cli("EXISTS", "\(prefix)schema")) == "1" })
        // The origin now refuses every introspection: B learns the schema from the fleet.
        try origin.setFaults(#"{"status":500,"statusBody":"html"}"#)
        let b = try member(origin: origin, redis: redis, prefix: prefix)
        let loaded = try b.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(20))
        #expect(loaded.contains("from Redis"), "\(loaded)")
        try origin.setFaults(#"{"reset":true}"#)
        // With the schema, B tags by entity even what the client did not select.
        _ = try b.client.post("/graphql", json: SchemaAwareCachingTests.site)
        let upstream = try #require(try origin.counters()["lastQuery"] as? String)
        #expect(upstream.contains("__bw_"), "the document was rewritten with the fleet's schema: \(upstream)")
    }

    @Test func anOperationSeenAnsweringAPerUserTypeIsBypassedByTheWholeFleet() throws {
        let origin = try DemoOriginProcess()
        let redis = try RedisServerProcess()
        let prefix = "bwknow-\(UUID().uuidString.prefix(8)):"
        let cache = "  types:\n    Rocket: { scope: per-user }"
        let a = try member(origin: origin, redis: redis, prefix: prefix, cache: cache)
        let b = try member(origin: origin, redis: redis, prefix: prefix, cache: cache)
        for proxy in [a, b] {
            _ = try proxy.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(20))
        }
        let first = try a.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(first.header("X-Cache") == "BYPASS")
        _ = try b.process.waitForLine(containing: "per-user operations learned by other proxies", timeout: .seconds(10))
        // B bypasses it from its first request: no key, so no look in the shared cache and no lease.
        let misses = try #require((try b.stats()["redis"] as? [String: Any])?["l2_misses"] as? Int)
        let onB = try b.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(onB.header("X-Cache") == "BYPASS")
        #expect(onB.header("Cache-Control") == "private, no-store")
        #expect((try b.stats()["redis"] as? [String: Any])?["l2_misses"] as? Int == misses)
    }

    /// With `redis.signing_key`, a member written into the shared set without the key is not
    /// believed (its operation is still cached; the refusal is counted and logged), while the
    /// member another proxy signed is adopted as before.
    @Test func withASigningKeyAForgedPerUserOperationIsIgnoredAndASignedOneAdopted() throws {
        let origin = try DemoOriginProcess()
        let redis = try RedisServerProcess()
        let prefix = "bwknow-\(UUID().uuidString.prefix(8)):"
        let cache = "  types:\n    Rocket: { scope: per-user }"
        let key = "test-fleet-signing-key-0123456789"
        let a = try member(origin: origin, redis: redis, prefix: prefix, cache: cache, signingKey: key)
        let b = try member(origin: origin, redis: redis, prefix: prefix, cache: cache, signingKey: key)
        for proxy in [a, b] {
            _ = try proxy.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(20))
        }
        // Forged as a writer to Redis would: the operation of a public answer (no Rocket in it),
        // added to the set as the sharing script adds members, and the counter moved.
        let publicQuery = #"query GetLaunchSite { launch(id: "34") { site } }"#
        try redis.cli("SADD", "\(prefix)peruser", "\(APQ.hash(publicQuery)) GetLaunchSite")
        try redis.cli("INCR", "\(prefix)peruser:n")
        let rejected = try b.process.waitForLine(containing: "redis value rejected", timeout: .seconds(10))
        #expect(rejected.contains("\(prefix)peruser"), "\(rejected)")
        let counted = try #require((try b.stats()["redis"] as? [String: Any])?["rejected"] as? Int)
        #expect(counted >= 1)
        // Not believed: the public operation is cached as before.
        let first = try b.client.post("/graphql", json: SchemaAwareCachingTests.otherSite)
        #expect(first.header("X-Cache") == "MISS")
        #expect(try b.client.post("/graphql", json: SchemaAwareCachingTests.otherSite).header("X-Cache") == "HIT")
        #expect(!b.process.output.contains { $0.contains("per-user operations learned by other proxies") })

        // A learns a per-user operation and writes it signed: B adopts it.
        let onA = try a.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(onA.header("X-Cache") == "BYPASS")
        let learned = try b.process.waitForLine(
            containing: "per-user operations learned by other proxies", timeout: .seconds(10))
        #expect(learned.contains("operations.adopted=1"), "\(learned)")
        let misses = try #require((try b.stats()["redis"] as? [String: Any])?["l2_misses"] as? Int)
        let onB = try b.client.post("/graphql", json: SchemaAwareCachingTests.site)
        #expect(onB.header("X-Cache") == "BYPASS")
        #expect(onB.header("Cache-Control") == "private, no-store")
        #expect((try b.stats()["redis"] as? [String: Any])?["l2_misses"] as? Int == misses)
        // Two members: the forged one, and A's carrying its code, so not its plain text. (Counted
        // by Redis: a member's 32 code bytes may hold a newline, so `SMEMBERS` output is not
        // split into lines.)
        let siteQuery = #"query GetLaunchSite { launch(id: "33") { site rocket { name } } }"#
        #expect(try redis.cli("SCARD", "\(prefix)peruser") == "2")
        #expect(try redis.cli("SISMEMBER", "\(prefix)peruser", "\(APQ.hash(publicQuery)) GetLaunchSite") == "1")
        #expect(try redis.cli("SISMEMBER", "\(prefix)peruser", "\(APQ.hash(siteQuery)) GetLaunchSite") == "0")
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    private func holds(within timeout: Duration, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return condition()
    }
}
