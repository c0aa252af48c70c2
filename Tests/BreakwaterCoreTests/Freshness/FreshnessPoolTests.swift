// The fleet pool's value format and the ledger read back from it (docs/FRESHNESS.md).

import Testing

@testable import BreakwaterCore

@Suite struct FreshnessPoolTests {
    @Test func samplesRoundTripThroughTheirPooledForm() throws {
        let sample = FreshnessSample(operationName: "GetLaunch", age: .milliseconds(1234), changed: true, ttl: .seconds(5))
        #expect(FreshnessPool.encode(sample) == "1234 1 5000")
        let decoded = try #require(FreshnessPool.decode("1234 1 5000"))
        #expect(decoded.age == .milliseconds(1234) && decoded.changed && decoded.ttl == .seconds(5))
        for bad in ["", "1 2 3", "-1 0 5", "1 0", "a 0 5", "1 0 5 6"] {
            #expect(FreshnessPool.decode(bad) == nil, "\(bad)")
        }
    }

    @Test func thePooledLedgerKeepsTheFleetsCountsAndSkipsWhatItCannotRead() throws {
        let values = (0..<150).map { "\($0 * 10) \($0 >= 100 ? 1 : 0) 2000" } + ["garbage"]
        let ledger = FreshnessPool.ledger([
            (name: "GetLaunch", samples: 900, changed: 300, values: values),
            (name: "Quiet", samples: 0, changed: 0, values: ["5 0 1000"]),
        ])
        let launch = try #require(ledger.operations["GetLaunch"])
        #expect(launch.samples == 900 && launch.changed == 300)
        #expect(launch.ages.count == 150)
        #expect(launch.currentTTLSeconds == 2)
        // At least as many samples as it holds, whatever the counter says.
        #expect(ledger.operations["Quiet"]?.samples == 1)
        let estimate = try #require(ledger.estimates(target: 0.9)["GetLaunch"])
        #expect(estimate.samples == 900)
        #expect(estimate.suggestedTTLSeconds != nil)
    }
}
