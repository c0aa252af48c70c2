// StatsReport.json(): parses, carries exactly the keys docs/OPERATING.md lists with the right types, and
// writes plain numbers. Also home of `StatsReportSample`, which the Prometheus tests share.

import BreakwaterCore
import Testing

struct StatsReportJSONTests {
    @Test func printsASampleForReaders() throws {
        let text = String(decoding: StatsReportSample.make().json(), as: UTF8.self)
        print("GET /stats sample:\n\(text)")
        #expect(text.hasPrefix("{\"uptime_s\":"))
    }

    @Test func hasExactlyTheSpecKeysWithTheirTypes() throws {
        let json = try JSONParser.parse(StatsReportSample.make().json())
        #expect(keys(of: json) == [
            "uptime_s", "requests", "protocols", "hits", "misses", "stale", "bypass", "hit_ratio", "coalesced",
            "cache", "apq", "upstream", "responses", "errors", "bypass_reasons", "config", "version", "operations",
        ])
        for key in ["requests", "hits", "misses", "stale", "bypass", "coalesced"] {
            #expect(isInteger(json[key]), "\(key)")
        }
        #expect(isNumber(json["uptime_s"]) && isNumber(json["hit_ratio"]))
        expectIntegers(json["protocols"], ["http1", "http2"])
        expectIntegers(json["cache"], ["entries", "bytes", "max_bytes", "evictions", "expired"])
        expectIntegers(json["apq"], ["entries", "registered", "not_found", "hash_mismatch"])
        let upstream = json["upstream"]
        #expect(keys(of: upstream) == ["requests", "errors", "timeouts", "cancelled", "errors_by_reason", "latency_ms"])
        expectIntegers(upstream?["errors_by_reason"], ["refused", "reset", "timeout", "tls", "malformed", "5xx"])
        #expect(keys(of: json["config"]) == ["reloads", "reload_failures", "last_reload_success_s"])
        #expect(["requests", "errors", "timeouts", "cancelled"].allSatisfy { isInteger(upstream?[$0]) })
        let latency = upstream?["latency_ms"]
        #expect(keys(of: latency) == ["p50", "p90", "p99"])
        #expect(["p50", "p90", "p99"].allSatisfy { isNumber(latency?[$0]) })

        let operations = try #require(json["operations"])
        #expect(keys(of: operations) == ["GetLaunches", "(anonymous)", "Launch \"92\"\n"])
        for name in keys(of: operations) {
            let row = operations[name]
            #expect(keys(of: row) == ["requests", "hits", "misses", "stale", "bypass", "hit_ratio", "p50_ms", "p99_ms"])
            #expect(["requests", "hits", "misses", "stale", "bypass"].allSatisfy { isInteger(row?[$0]) })
            #expect(["hit_ratio", "p50_ms", "p99_ms"].allSatisfy { isNumber(row?[$0]) })
        }
    }

    @Test func figuresMatchTheStatistics() throws {
        let json = try JSONParser.parse(StatsReportSample.make().json())
        #expect(json["requests"] == .number("9"))
        #expect(json["hits"] == .number("3"))
        #expect(json["hit_ratio"] == .number("0.667"))  // (3 hits + 1 stale) / (… + 2 misses)
        #expect(json["uptime_s"] == .number("3725.5"))
        #expect(json["cache"]?["max_bytes"] == .number("268435456"))
        #expect(json["upstream"]?["timeouts"] == .number("1"))
        let p50 = try #require(json["upstream"]?["latency_ms"]?["p50"].flatMap(numberValue))
        #expect(abs(p50 - 12) <= 0.12)  // 12 ms, within the histogram's 1%
        #expect(json["operations"]?["GetLaunches"]?["hits"] == .number("3"))
    }

    @Test func numbersAreIntegersOrAtMostThreeDecimalsWithoutExponent() throws {
        for report in [StatsReportSample.make(), StatsReportSample.empty()] {
            let json = try JSONParser.parse(report.json())
            for number in numbers(in: json) {
                #expect(!number.contains("e") && !number.contains("E") && !number.contains("n"), "\(number)")
                let fraction = number.split(separator: ".").dropFirst().first ?? ""
                #expect(fraction.count <= 3, "\(number)")
            }
        }
    }

    @Test func emptyReportHasZeroRatiosAndLatencies() throws {
        let json = try JSONParser.parse(StatsReportSample.empty().json())
        #expect(json["hit_ratio"] == .number("0"))
        #expect(json["upstream"]?["latency_ms"]?["p99"] == .number("0"))
        #expect(json["operations"] == .object([]))
    }

    @Test(arguments: [
        (0.0, "0"), (0.75, "0.75"), (2.0 / 3.0, "0.667"), (0.0004, "0"), (0.0016, "0.002"),
        (12.0, "12"), (1e-7, "0"), (123456789.0126, "123456789.013"), (Double.nan, "0"), (-1.5, "-1.5"),
    ])
    func decimalsAreRoundedToThreePlaces(_ value: Double, _ text: String) {
        #expect(DecimalText.string(value, fractionDigits: 3) == text)
    }

    private func keys(of value: JSONValue?) -> [String] {
        guard case .object(let members) = value else { return [] }
        return members.map(\.key)
    }

    private func numberValue(_ value: JSONValue) -> Double? {
        guard case .number(let text) = value else { return nil }
        return Double(text)
    }

    private func isNumber(_ value: JSONValue?) -> Bool {
        if case .number = value { return true }
        return false
    }

    private func isInteger(_ value: JSONValue?) -> Bool {
        guard case .number(let text) = value else { return false }
        return text.allSatisfy(\.isASCIIDigit)
    }

    private func expectIntegers(_ object: JSONValue?, _ expected: [String]) {
        #expect(keys(of: object) == expected)
        for key in expected { #expect(isInteger(object?[key]), "\(key)") }
    }

    private func numbers(in value: JSONValue) -> [String] {
        switch value {
        case .number(let text): [text]
        case .object(let members): members.flatMap { numbers(in: $0.value) }
        case .array(let elements): elements.flatMap(numbers(in:))
        default: []
        }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// Reports with known figures for the JSON and Prometheus tests.
enum StatsReportSample {
    /// Nine requests over three operations (one anonymous, one with characters to escape),
    /// four upstream requests, and a cache a quarter full.
    static func make() -> StatsReport {
        var stats = RequestStatistics()
        let requests: [(String?, RequestStatistics.CacheResult?, Duration)] = [
            ("GetLaunches", .hit, .microseconds(300)), ("GetLaunches", .hit, .microseconds(450)),
            ("GetLaunches", .hit, .microseconds(700)), ("GetLaunches", .stale, .milliseconds(2)),
            ("GetLaunches", .miss, .milliseconds(14)), (nil, .miss, .milliseconds(30)),
            (nil, .bypass, .milliseconds(40)), (nil, nil, .microseconds(80)),
            ("Launch \"92\"\n", nil, .milliseconds(3)),
        ]
        for (name, cache, duration) in requests {
            stats.recordRequest(
                operationName: name, cache: cache, bypassReason: cache == .bypass ? .zeroTTL : nil, duration: duration)
        }
        stats.recordUpstream(duration: .milliseconds(12), outcome: .answered, operationName: "GetLaunches", cache: .miss)
        stats.recordUpstream(duration: .milliseconds(26), outcome: .answered)
        stats.recordUpstream(duration: .milliseconds(8), outcome: .failed, reason: .serverError)
        stats.recordUpstream(duration: .seconds(5), outcome: .timedOut)
        stats.recordAPQ(.notFound)
        stats.recordAPQ(.hashMismatch)
        stats.recordResponse(status: 200, errorCode: nil, clientName: "ios", clientVersion: "3.1")
        stats.recordResponse(status: 400, errorCode: "BAD_REQUEST", clientName: "web\"", clientVersion: nil)
        stats.recordResponse(status: 502, errorCode: "ORIGIN_UNAVAILABLE", clientName: nil, clientVersion: nil)
        var cache = StoreStatistics()
        cache.entries = 1_204
        cache.bytes = 67_108_864
        cache.maxBytes = 268_435_456
        cache.evictions = 17
        cache.expired = 230
        return StatsReport(
            uptime: .milliseconds(3_725_500), requests: stats, cache: cache,
            apqEntries: 42, apqRegistered: 45, coalesced: 6,
            process: ProcessFigures(
                residentMemoryBytes: 50_000_000, virtualMemoryBytes: 900_000_000, openFileDescriptors: 12,
                maxFileDescriptors: 1024, cpuSeconds: 1.25, startTimeSeconds: 1_795_449_845.5),
            configuredOperations: ["GetLaunches"]
        )
    }

    /// A report right after start: nothing counted yet.
    static func empty() -> StatsReport {
        StatsReport(
            uptime: .zero, requests: RequestStatistics(), cache: StoreStatistics(),
            apqEntries: 0, apqRegistered: 0, coalesced: 0
        )
    }
}
