// The operators' endpoints (docs/OPERATING.md) against the real binary: stats and metrics move as
// requests flow, purge, the token, health while draining, reload on SIGHUP, the access log.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct AdminTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#

    @Test func statsHaveSpecKeysAndCountersMoveWithRequests() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let before = try proxy.stats()
        for key in ["uptime_s", "requests", "hits", "misses", "stale", "bypass", "hit_ratio", "coalesced", "cache", "apq", "upstream", "operations"] {
            #expect(before[key] != nil, "missing \(key)")
        }
        let cache = try #require(before["cache"] as? [String: Any])
        for key in ["entries", "bytes", "max_bytes", "evictions", "expired"] { #expect(cache[key] != nil, "cache.\(key)") }
        let apq = try #require(before["apq"] as? [String: Any])
        for key in ["entries", "registered", "not_found", "hash_mismatch"] { #expect(apq[key] != nil, "apq.\(key)") }
        let upstream = try #require(before["upstream"] as? [String: Any])
        #expect((upstream["latency_ms"] as? [String: Any])?["p99"] != nil)
        #expect(before["requests"] as? Int == 0)

        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT")
        _ = try proxy.client.post("/graphql", json: APQ.hashOnlyPOST("{ unknown }", operationName: nil))
        let after = try proxy.stats()
        #expect(after["requests"] as? Int == 3)
        #expect(after["hits"] as? Int == 1)
        #expect(after["misses"] as? Int == 1)
        #expect(after["hit_ratio"] as? Double == 0.5)
        #expect((after["cache"] as? [String: Any])?["entries"] as? Int == 1)
        #expect((after["apq"] as? [String: Any])?["not_found"] as? Int == 1)
        #expect((after["upstream"] as? [String: Any])?["requests"] as? Int == 1)
        let operation = (after["operations"] as? [String: Any])?["GetLaunchDetail"] as? [String: Any]
        #expect(operation?["requests"] as? Int == 2)
        #expect(operation?["hits"] as? Int == 1)
    }

    @Test func metricsAreThePrometheusForm() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        _ = try proxy.client.post("/graphql", json: Self.detail)
        _ = try proxy.client.post("/graphql", json: Self.detail)
        let metrics = try proxy.admin.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.header("Content-Type")?.hasPrefix("text/plain") == true)
        let text = metrics.text
        for name in [
            "breakwater_upstream_requests_total", "breakwater_upstream_errors_total", "breakwater_upstream_timeouts_total",
            "breakwater_cache_entries", "breakwater_cache_bytes", "breakwater_cache_evictions_total", "breakwater_apq_entries",
            "breakwater_coalesced_total", "breakwater_request_duration_seconds_bucket", "breakwater_upstream_duration_seconds_bucket",
        ] {
            #expect(text.contains("\n\(name)") || text.hasPrefix(name), "missing \(name)")
        }
        #expect(text.contains(#"breakwater_requests_total{cache="hit"} 1"#))
        #expect(text.contains(#"breakwater_requests_total{cache="miss"} 1"#))
    }

    @Test func dashboardIsAnHTMLPage() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let page = try proxy.admin.get("/")
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("Breakwater"))
        for external in ["src=\"http", "href=\"http", "url(http", "@import", "src=\"//", "href=\"//"] {
            #expect(!page.text.contains(external), "no external assets: \(external)")
        }
    }

    @Test func adminPathsAreNotOnTheGraphQLListenerAndUnknownOnesAre404() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        #expect(try proxy.client.get("/stats").status == 404)
        #expect(try proxy.client.send(method: "POST", target: "/purge", body: Array(#"{"all":true}"#.utf8)).status == 404)
        #expect(try proxy.admin.get("/nope").status == 404)
        #expect(try proxy.admin.get("/healthz").text == "ok\n")
    }

    @Test(arguments: [
        (#"{"operation":"GetLaunchDetail"}"#, 1), (#"{"all":true}"#, 1), (#"{"type":"Launch","id":"92"}"#, 1),
        (#"{"type":"Launch"}"#, 1), (#"{"type":"Launch","id":"93"}"#, 0), (#"{"operation":"Other"}"#, 0),
    ])
    func purgeRemovesTheMatchingEntries(body: String, purged: Int) throws {
        let origin = try DemoOriginProcess()
        // No schema expected: the entry's tags are the selected ones whenever it is stored.
        let proxy = try cachingProxy(origin: origin, extra: "origin:\n  schema: \"off\"")
        _ = try proxy.client.post("/graphql", json: Self.detail)
        let response = try proxy.admin.post("/purge", json: body)
        #expect(response.status == 200)
        #expect(response.jsonObject?["purged"] as? Int == purged)
        let next = try proxy.client.post("/graphql", json: Self.detail)
        #expect(next.header("X-Cache") == (purged == 1 ? "MISS" : "HIT"))
        #expect((try proxy.stats()["cache"] as? [String: Any])?["entries"] as? Int == 1)
    }

    @Test func purgeByDocumentHash() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let document = #"query GetLaunchDetail { launch(id: "92") { __typename id site } }"#
        _ = try proxy.client.post("/graphql", json: Self.detail)
        let response = try proxy.admin.post("/purge", json: #"{"hash":"\#(APQ.hash(document))"}"#)
        #expect(response.jsonObject?["purged"] as? Int == 1)
    }

    @Test func softPurgeTurnsEntriesStale() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        _ = try proxy.client.post("/graphql", json: Self.detail)
        #expect(try proxy.admin.post("/purge", json: #"{"all":true,"soft":true}"#).jsonObject?["purged"] as? Int == 1)
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "STALE")
    }

    @Test func purgeOfOneUsersEntryNeverExposesItToAnother() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let me = #"{"query":"query Me { me { email } }"}"#
        _ = try proxy.client.post("/graphql", json: me, headers: [("Authorization", "ada@example.com")])
        _ = try proxy.client.post("/graphql", json: me, headers: [("Authorization", "bob@example.com")])
        #expect(try proxy.admin.post("/purge", json: #"{"operation":"Me","soft":true}"#).jsonObject?["purged"] as? Int == 2)
        let bob = try proxy.client.post("/graphql", json: me, headers: [("Authorization", "bob@example.com")])
        #expect(bob.header("X-Cache") == "STALE")
        #expect((bob.data?["me"] as? [String: Any])?["email"] as? String == "bob@example.com")
    }

    @Test func malformedPurgeIsBadRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        for body in ["{", "{}", #"{"everything":true}"#] {
            #expect(try proxy.admin.post("/purge", json: body).status == 400, "\(body)")
        }
    }

    @Test func adminTokenGuardsPosts() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "admin:\n  token: s3cret-0123456789abcdef\n")
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#).status == 401)
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#, headers: [("Authorization", "Bearer wrong")]).status == 403)
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#, headers: [("Authorization", "Bearer s3cret-0123456789abcdef")]).status == 200)
        #expect(try proxy.admin.get("/stats").status == 200, "GETs stay open")
    }

    @Test func sighupReloadsRulesAndABadFileKeepsTheRunningOnes() throws {
        let origin = try DemoOriginProcess()
        let base = "persisted_queries:\n  store: \"\"\n"
        let proxy = try ProxyProcess(origin: origin.url, yaml: base, logLevel: "notice")
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "BYPASS")
        try proxy.rewriteConfig(base + "cache:\n  rules:\n    - operation: GetLaunchDetail\n      ttl: 30s\n")
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT")
        try proxy.rewriteConfig(base + "cache:\n  rulez: []\n")
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "reload failed", timeout: .seconds(5))
        #expect(proxy.process.isRunning)
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT")
    }

    /// A reload that lowers an operation's TTL cuts the entries stored before it (docs/OPERATING.md,
    /// "Signals"): stored under 5m, reloaded with 1s, the entry stops being a HIT within seconds
    /// (not five minutes), and the answers then announce the new TTL.
    @Test func aReloadThatLowersATTLCutsTheEntriesStoredBefore() throws {
        let origin = try DemoOriginProcess()
        let base = "persisted_queries:\n  store: \"\"\ncache:\n  rules:\n    - operation: GetLaunchDetail\n      ttl: "
        let proxy = try ProxyProcess(origin: origin.url, yaml: base + "5m\n", logLevel: "notice")
        let target = "/graphql?" + URLEncoding.queryString([("query", #"query GetLaunchDetail { launch(id: "92") { id site } }"#)])
        #expect(try proxy.client.get(target).header("X-Cache") == "MISS")
        let hit = try proxy.client.get(target)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Cache-Control")?.contains("max-age=300") == true, "\(hit)")

        try proxy.rewriteConfig(base + "1s\n")
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        var answer = hit
        #expect(try eventually(within: .seconds(5)) {
            answer = try proxy.client.get(target)
            return answer.header("X-Cache") != "HIT"
        }, "still a HIT under the old TTL: \(answer)")
        #expect(["STALE", "MISS"].contains(answer.header("X-Cache")), "\(answer)")
        // The entry that replaces it lives under the new rule.
        #expect(try eventually(within: .seconds(5)) {
            answer = try proxy.client.get(target)
            return answer.header("X-Cache") == "HIT" && answer.header("Cache-Control")?.contains("max-age=1,") == true
        }, "\(answer)")
        let cut = try proxy.process.waitForLine(containing: "stored entries cut", timeout: .seconds(5))
        #expect(cut.contains("cache.lowered=1"), "\(cut)")
    }
}
