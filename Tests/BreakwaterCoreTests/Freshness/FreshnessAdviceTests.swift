// `breakwater advise`'s snippet and the `/stats` shape it reads (docs/FRESHNESS.md).

import Testing

@testable import BreakwaterCore

@Suite struct FreshnessAdviceTests {
    static func statsJSON() -> [UInt8] {
        var changing = FreshnessEstimate(
            observations: (1...200).map { (age: Double($0) / 10, changed: $0 > 100) }, samples: 200, changed: 100,
            currentTTLSeconds: 20, target: 0.9)
        changing.samples = 200
        let still = FreshnessEstimate(
            observations: (1...150).map { (age: Double($0) / 5, changed: false) }, samples: 150, changed: 0,
            currentTTLSeconds: 30, target: 0.9)
        let fast = FreshnessEstimate(
            observations: (1...150).map { (age: Double($0) / 100, changed: true) }, samples: 150, changed: 150,
            currentTTLSeconds: 2, target: 0.9)
        let unsure = FreshnessEstimate(
            observations: (1...120).map { (age: Double($0) / 10, changed: $0 % 12 == 0) }, samples: 120, changed: 10,
            currentTTLSeconds: 12, target: 0.9)
        let young = FreshnessEstimate(
            observations: [(age: 1, changed: true)], samples: 1, changed: 1, currentTTLSeconds: 5, target: 0.9)
        var report = StatsReport(
            uptime: .seconds(1), requests: RequestStatistics(), cache: StoreStatistics(), apqEntries: 0,
            apqRegistered: 0, coalesced: 0)
        report.freshness = FreshnessReport(
            settings: FreshnessSettings(target: 0.9),
            estimates: ["GetLaunch": changing, "GetRockets": still, "GetTime": fast, "GetWeather": unsure, "Me": young])
        return report.json()
    }

    @Test func statsCarryEachOperationsFiguresWithNullsUntilKnown() throws {
        let root = try JSONParser.parse(Self.statsJSON())
        let rockets = try #require(root["freshness"]?["GetRockets"])
        #expect(rockets["samples"] == .number("150"))
        #expect(rockets["changed"] == .number("0"))
        #expect(rockets["median_change_s"] == .null)
        #expect(rockets["suggested_ttl_s"] == .number("30"))
        #expect(rockets["suggested_ttl_low_s"] == .number("30"))
        #expect(rockets["suggested_ttl_high_s"] == .number("30"))
        #expect(rockets["too_fast_to_cache"] == .bool(false))
        #expect(rockets["target"] == .number("0.9"))
        let launch = try #require(root["freshness"]?["GetLaunch"])
        #expect(launch["suggested_ttl_s"] == .number("10.4"))
        #expect(launch["suggested_ttl_low_s"] == .number("10.4"))
        #expect(launch["suggested_ttl_high_s"] == .number("12"))
        let me = try #require(root["freshness"]?["Me"])
        for key in ["median_change_s", "p10_change_s", "stale_hit_ratio", "suggested_ttl_s", "suggested_ttl_low_s"] {
            #expect(me[key] == .null, "\(key)")
        }
        #expect(me["too_fast_to_cache"] == .bool(false))
        #expect(me["current_ttl_s"] == .number("5"))
    }

    @Test func tooFastToCacheIsZeroWithItsMarkerAndUndecidedIsNull() throws {
        let root = try JSONParser.parse(Self.statsJSON())
        let fast = try #require(root["freshness"]?["GetTime"])
        #expect(fast["suggested_ttl_s"] == .number("0"))
        #expect(fast["too_fast_to_cache"] == .bool(true))
        let unsure = try #require(root["freshness"]?["GetWeather"])
        #expect(unsure["suggested_ttl_s"] == .null, "\(unsure)")
        #expect(unsure["too_fast_to_cache"] == .bool(false))
        #expect(unsure["suggested_ttl_high_s"] != .null)
    }

    @Test func adviceIsCacheRulesEntriesWithTheEvidenceAsComments() throws {
        let snippet = try FreshnessAdvice(stats: Self.statsJSON(), source: "http://127.0.0.1:9090").snippet
        #expect(!snippet.hasPrefix("cache:") && !snippet.contains("\ncache:"), "entries only, to go under cache.rules: \(snippet)")
        #expect(snippet.contains("    # GetLaunch: 200 samples, 100 changed; time to change: median 10s, 10th percentile 10s\n"))
        #expect(snippet.contains("    # longest TTL with 90% of hits fresh: 10s to 12s (95% interval)\n"), "\(snippet)")
        #expect(snippet.contains("    - operation: GetLaunch\n      ttl: 10s\n"), "\(snippet)")
        #expect(snippet.contains("    # GetRockets: 150 samples, 0 changed; no change seen in answers up to 30s old\n"))
        #expect(snippet.contains("    - operation: GetRockets\n      ttl: 30s\n"))
        #expect(snippet.contains("    # Me: 1 samples, not enough yet (100 needed): no suggestion\n"))
        #expect(snippet.contains("    # GetTime changes too fast to cache"), "\(snippet)")
        #expect(snippet.contains("    # GetWeather: no suggestion yet"), "\(snippet)")
        for name in ["Me", "GetTime", "GetWeather"] { #expect(!snippet.contains("operation: \(name)")) }
        #expect(!snippet.contains("ttl: 0s"))
        #expect(snippet.contains("90% of hits") && snippet.contains("95% confidence"))
        // Under cache.rules of a configuration, the entries are rules the loader accepts.
        let loaded = try ConfigurationLoader.read(
            yaml: "cache:\n  rules:\n" + snippet, file: "advice.yaml", baseDirectory: ".")
        #expect(loaded.configuration.cache.rules.map(\.operation) == ["GetLaunch", "GetRockets"])
        #expect(loaded.configuration.cache.rules.map(\.ttl) == [.seconds(10), .seconds(30)])
    }

    @Test func aProxyWithoutFreshnessFiguresIsAClearError() {
        #expect(throws: FreshnessAdvice.Failure.self) {
            try FreshnessAdvice(stats: Array(#"{"requests":1}"#.utf8), source: "x")
        }
        #expect(throws: FreshnessAdvice.Failure.self) {
            try FreshnessAdvice(stats: Array("not json".utf8), source: "x")
        }
    }

    @Test(arguments: [(0.0, "0s"), (0.93, "900ms"), (4.64, "4600ms"), (13.9, "13s"), (90.5, "90s"), (120.7, "2m"), (125, "125s")])
    func suggestedTTLsRoundDown(seconds: Double, text: String) {
        #expect(FreshnessAdvice.duration(seconds) == text)
    }

    @Test func theFreshnessSettingsParseAndRefuseNonsense() throws {
        let good = """
            cache:
              freshness:
                sample: 0.5
                max_fetches_per_second: 20
                target: 0.9
            """
        let loaded = try ConfigurationLoader.read(yaml: good, file: "c.yaml", baseDirectory: ".")
        #expect(loaded.configuration.cache.freshness == FreshnessSettings(share: 0.5, maxFetchesPerSecond: 20, target: 0.9))
        #expect(Configuration().cache.freshness == FreshnessSettings(share: 0.02, maxFetchesPerSecond: 5, target: 0.99))
        for bad in ["sample: 2", "target: 1", "max_fetches_per_second: -1", "sample: lots", "samples: 0.1"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ConfigurationLoader.read(yaml: "cache:\n  freshness:\n    \(bad)\n", file: "c.yaml", baseDirectory: ".")
            }
        }
    }
}
