// The current TTL of a freshness row (docs/FRESHNESS.md, `current_ttl_s`) follows the running
// configuration: a reload that changes a rule, `default_ttl` or a `cache.types` TTL shows at once,
// not when the next sample comes; what only the origin decided stays as sampled.

import BreakwaterCore
import Testing

struct FreshnessCurrentTTLTests {
    static func policy(rule: Duration? = nil, defaultTTL: Duration = .zero, launchTTL: Duration? = nil) -> CachePolicy {
        var settings = Configuration.Cache()
        settings.defaultTTL = defaultTTL
        if let rule { settings.rules = [Configuration.CacheRule(operation: "GetLaunch", ttl: rule)] }
        if let launchTTL { settings.types = ["Launch": Configuration.TypePolicy(ttl: launchTTL)] }
        return CachePolicy(settings)
    }

    static func current(_ basis: TTLBasis?, sampled: Double? = 30, operation: String = "GetLaunch", _ policy: CachePolicy)
        -> Double?
    {
        FreshnessCurrentTTL.seconds(operation: operation, latestBasis: basis, sampledTTLSeconds: sampled, policy: policy)
    }

    static let fromConfiguration = TTLBasis(originTTL: nil, types: ["Launch"])
    static let fromOrigin = TTLBasis(originTTL: .seconds(30), types: ["Launch"])

    @Test func aChangedRuleShowsAtOnce() {
        #expect(Self.current(Self.fromConfiguration, Self.policy(rule: .seconds(30))) == 30)
        #expect(Self.current(Self.fromConfiguration, Self.policy(rule: .seconds(2))) == 2)
        #expect(Self.current(Self.fromConfiguration, Self.policy(rule: .seconds(600))) == 600)
        // A pooled row keeps no basis: the rule still decides.
        #expect(Self.current(nil, Self.policy(rule: .milliseconds(1500))) == 1.5)
    }

    @Test func defaultTTLAndTypesShowWhereTheyDecide() {
        #expect(Self.current(Self.fromConfiguration, Self.policy(defaultTTL: .seconds(7))) == 7)
        #expect(Self.current(Self.fromConfiguration, Self.policy(rule: .seconds(60), launchTTL: .seconds(20))) == 20)
        // The origin's max-age decided it: a new default_ttl does not change it.
        #expect(Self.current(Self.fromOrigin, Self.policy(defaultTTL: .seconds(7))) == 30)
    }

    @Test func whatNoConfigurationDecidesStaysAsSampled() {
        #expect(Self.current(nil, sampled: 45, Self.policy(defaultTTL: .seconds(7))) == 45)
        #expect(Self.current(nil, sampled: nil, Self.policy(rule: .seconds(5))) == nil)
        #expect(Self.current(Self.fromConfiguration, sampled: 9, operation: FreshnessLedger.other, Self.policy()) == 9)
    }

    /// The stale-hit estimate is read at the TTL shown: a shorter TTL leaves fewer hits stale.
    @Test func theStaleHitEstimateIsForTheCurrentTTL() {
        var ledger = FreshnessLedger()
        for index in 0..<400 {
            let age = Double(index % 100) / 10  // 0 to 9.9 s
            ledger.record(
                FreshnessSample(
                    operationName: "GetLaunch", age: .milliseconds(Int64(age * 1000)), changed: age >= 5,
                    ttl: .seconds(10), ttlBasis: Self.fromConfiguration))
        }
        let row = ledger.operations["GetLaunch"]!
        #expect(row.latestTTLBasis == Self.fromConfiguration)
        let sampled = ledger.estimates(target: 0.99)["GetLaunch"]!
        let shown = ledger.estimates(target: 0.99) { name, row in
            Self.current(row.latestTTLBasis, sampled: row.currentTTLSeconds, operation: name, Self.policy(rule: .seconds(4)))
        }["GetLaunch"]!
        #expect(sampled.currentTTLSeconds == 10 && shown.currentTTLSeconds == 4)
        #expect((sampled.staleHitRatio ?? 0) > 0.2)
        #expect(shown.staleHitRatio == 0)
    }
}
