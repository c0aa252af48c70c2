// Live: the cache semantics the attack probe found wrong: max-age is the whole
// TTL beside Age, the stale windows are passed on, a 502 carries one Cache-Control, a small cache
// keeps a hot entry through a scan of one-hit entries, and cache.expired counts refetches.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized)
struct CacheReliabilityTests {
    static let launches = "query GetLaunches($pageSize: Int) { launches(pageSize: $pageSize) { cursor hasMore launches { id site mission { name missionPatch } rocket { id name type } } } }"
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"

    static func get(_ proxy: ProxyProcess, _ document: String, _ variables: String) throws -> HTTPClientResponse {
        try proxy.client.get("/graphql?" + URLEncoding.queryString([("query", document), ("variables", variables)]))
    }

    @Test func hitCarriesTheWholeTTLBesideItsAge() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let miss = try Self.get(proxy, Self.detail, #"{"id":"11"}"#)
        #expect(miss.header("X-Cache") == "MISS")
        // Asked until its Age is no longer 0: the first answer after that is a HIT aged 1.
        var hit = miss
        #expect(
            try eventually(within: .seconds(6), every: .milliseconds(100)) {
                hit = try Self.get(proxy, Self.detail, #"{"id":"11"}"#)
                return hit.header("X-Cache") != "HIT" || hit.header("Age") != "0"
            })
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.header("Age") == "1")
        #expect(hit.headers(named: "Cache-Control") == ["public, max-age=30, stale-while-revalidate=10, stale-if-error=300"])
    }

    @Test func badGatewayCarriesOneCacheControl() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        try origin.setFaults(#"{"status": 503, "statusBody": "html"}"#)
        let answer = try Self.get(proxy, Self.detail, #"{"id":"12"}"#)
        #expect(answer.status == 502)
        #expect(answer.headers(named: "Cache-Control").count == 1, "\(answer)")
    }

    /// The probe's finding: in a 64 KiB cache split into 16 shards a hot entry was fetched 8–9
    /// times while one-hit entries streamed past. Now the cache is one shard at that size.
    @Test func hotEntrySurvivesAScanOfOneHitEntriesIn64KiB() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, cache: "  max_bytes: 64KiB")
        let hotVariables = #"{"pageSize":8}"#
        let first = try Self.get(proxy, Self.launches, hotVariables)
        #expect(first.header("X-Cache") == "MISS")
        print("hot answer: \(first.body.count) bytes")
        var hotMisses = 0
        for round in 0..<60 {
            // One-hit entries as large as the hot one: the same answer under a new alias each time.
            for scan in 0..<3 {
                let alias = Self.launches.replacingOccurrences(of: "{ launches(", with: "{ scan\(round)x\(scan): launches(")
                _ = try Self.get(proxy, alias, hotVariables)
            }
            let hot = try Self.get(proxy, Self.launches, hotVariables)
            if hot.header("X-Cache") != "HIT" { hotMisses += 1 }
        }
        #expect(hotMisses == 0, "the hot entry was fetched again \(hotMisses) times")
    }

    @Test func refreshOfAStaleEntryCountsAsExpired() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                persisted_queries:
                  store: ""
                cache:
                  stale_while_revalidate: 10s
                  rules:
                    - operation: GetLaunchDetail
                      ttl: 1s
                """)
        #expect(try Self.get(proxy, Self.detail, #"{"id":"13"}"#).header("X-Cache") == "MISS")
        // HITs until the 1 s TTL runs out; the first answer after it is STALE.
        var answer: String?
        #expect(
            try eventually(within: .seconds(6), every: .milliseconds(50)) {
                answer = try Self.get(proxy, Self.detail, #"{"id":"13"}"#).header("X-Cache")
                return answer != "HIT"
            })
        #expect(answer == "STALE")
        // The background refresh replaces the entry whose TTL ran out.
        var expired = -1
        for _ in 0..<50 {
            let cache = try #require(try proxy.stats()["cache"] as? [String: Any])
            expired = cache["expired"] as? Int ?? -1
            if expired == 1 { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(expired == 1)
        #expect(try Self.get(proxy, Self.detail, #"{"id":"13"}"#).header("X-Cache") == "HIT")
    }
}
