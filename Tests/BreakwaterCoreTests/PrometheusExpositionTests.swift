// StatsReport.prometheus(): every required family with HELP and TYPE, well-formed sample lines,
// cumulative histogram buckets ending in +Inf = _count per label set, the known series at 0 from
// the start, a bounded operation label, and escaped label values.

import BreakwaterCore
import Testing

struct PrometheusExpositionTests {
    static let families: [(name: String, type: String)] = [
        ("breakwater_requests_total", "counter"), ("breakwater_requests_all_total", "counter"),
        ("breakwater_upstream_requests_total", "counter"), ("breakwater_upstream_errors_total", "counter"),
        ("breakwater_upstream_timeouts_total", "counter"), ("breakwater_upstream_cancelled_total", "counter"),
        ("breakwater_cache_entries", "gauge"),
        ("breakwater_cache_bytes", "gauge"), ("breakwater_cache_max_bytes", "gauge"),
        ("breakwater_cache_evictions_total", "counter"), ("breakwater_cache_expired_total", "counter"),
        ("breakwater_apq_entries", "gauge"), ("breakwater_apq_registered_total", "counter"),
        ("breakwater_apq_not_found_total", "counter"), ("breakwater_apq_hash_mismatch_total", "counter"),
        ("breakwater_coalesced_total", "counter"), ("breakwater_uptime_seconds", "gauge"),
        ("breakwater_request_duration_seconds", "histogram"), ("breakwater_upstream_duration_seconds", "histogram"),
        ("breakwater_operation_requests_total", "counter"), ("breakwater_operation_cache_total", "counter"),
        ("breakwater_responses_total", "counter"), ("breakwater_errors_total", "counter"),
        ("breakwater_client_requests_total", "counter"), ("breakwater_build_info", "gauge"),
        ("breakwater_bypass_total", "counter"), ("breakwater_config_reloads_total", "counter"),
        ("breakwater_config_last_reload_success_timestamp_seconds", "gauge"),
    ]

    let text = StatsReportSample.make().prometheus()

    @Test func printsASampleForReaders() {
        print("GET /metrics sample:\n\(text)")
        #expect(text.hasSuffix("\n"))
    }

    @Test(arguments: families)
    func everyFamilyHasHelpTypeAndASample(_ name: String, _ type: String) {
        let lines = text.split(separator: "\n").map(String.init)
        let help = lines.firstIndex { $0.hasPrefix("# HELP \(name) ") }
        #expect(help != nil)
        #expect(lines.contains("# TYPE \(name) \(type)"))
        #expect(lines.contains { !$0.hasPrefix("#") && $0.hasPrefix(name) })
    }

    @Test func everyLineIsACommentOrANameLabelsValueSample() throws {
        let label = #"[a-z_]+="([^"\\\n]|\\[\\"n])*""#
        let sampleLine = try Regex(#"^[a-z_]+(\{"# + label + "(," + label + #")*\})? -?[0-9]+(\.[0-9]+)?$"#)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let isComment = line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ")
            #expect(isComment || line.wholeMatch(of: sampleLine) != nil, "\(line)")
        }
    }

    @Test func requestsTotalHasOneSeriesPerCacheResult() {
        for (result, count) in [("hit", 3), ("stale", 1), ("miss", 2), ("bypass", 1)] {
            #expect(text.contains("\nbreakwater_requests_total{cache=\"\(result)\"} \(count)\n"))
        }
        #expect(text.contains("\nbreakwater_requests_all_total 9\n"))
        #expect(text.contains("\nbreakwater_upstream_timeouts_total 1\n"))
    }

    static let bounds = [
        "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
        "+Inf",
    ]

    @Test(arguments: [
        ("breakwater_request_duration_seconds", #"operation="GetLaunches",cache="hit""#),
        ("breakwater_request_duration_seconds", #"operation="(anonymous)",cache="none""#),
        ("breakwater_upstream_duration_seconds", #"operation="(anonymous)",cache="none""#),
    ])
    func histogramBucketsAreCumulativeAndEndWithCount(_ name: String, _ series: String) throws {
        let buckets = samples(named: name + "_bucket").filter { $0.labels.hasPrefix(series + ",le=") }
        #expect(buckets.map(\.labels) == Self.bounds.map { series + ",le=\"\($0)\"" })
        let counts = buckets.compactMap { Int($0.value) }
        #expect(counts.count == Self.bounds.count)
        #expect(zip(counts, counts.dropFirst()).allSatisfy { $0 <= $1 })
        let total = try #require(samples(named: name + "_count").first { $0.labels == series }.flatMap { Int($0.value) })
        #expect(counts.last == total)
        #expect(samples(named: name + "_sum").filter { $0.labels == series }.count == 1)
    }

    @Test func requestDurationBucketsCountTheSampleRequests() {
        // Sample durations: 80, 300, 450, 700 µs, 2, 3, 14, 30, 40 ms, over every label set.
        var byBound: [String: Int] = [:]
        for sample in samples(named: "breakwater_request_duration_seconds_bucket") {
            let bound = sample.labels.split(separator: "le=").last.map { String($0.dropFirst().dropLast()) } ?? ""
            byBound[bound, default: 0] += Int(sample.value) ?? 0
        }
        #expect(Self.bounds.map { byBound[$0] ?? -1 } == [3, 4, 5, 6, 6, 7, 9, 9, 9, 9, 9, 9, 9, 9, 9])
        let sums = samples(named: "breakwater_request_duration_seconds_sum").compactMap { Double($0.value) }
        #expect(abs(sums.reduce(0, +) - 0.09053) < 1e-9)
    }

    @Test func durationHistogramsCarryOperationAndCacheLabels() {
        #expect(text.contains(#"breakwater_request_duration_seconds_count{operation="GetLaunches",cache="hit"} 3"#))
        #expect(text.contains(#"breakwater_request_duration_seconds_count{operation="GetLaunches",cache="miss"} 1"#))
        #expect(text.contains(#"breakwater_upstream_duration_seconds_count{operation="GetLaunches",cache="miss"} 1"#))
    }

    @Test func operationLabelOfTheHistogramsIsBounded() {
        var stats = RequestStatistics()
        for index in 0..<300 {
            stats.recordRequest(operationName: "Op\(index)", cache: .miss, duration: .milliseconds(index % 7))
            stats.recordUpstream(
                duration: .milliseconds(2), outcome: .answered, operationName: "Op\(index)", cache: .miss)
        }
        let report = StatsReport(
            uptime: .zero, requests: stats, cache: StoreStatistics(), apqEntries: 0, apqRegistered: 0, coalesced: 0,
            configuredOperations: ["Op299"])
        let text = report.prometheus()
        for family in ["breakwater_request_duration_seconds", "breakwater_upstream_duration_seconds"] {
            let operations = Set(
                text.split(separator: "\n").filter { $0.hasPrefix(family + "_count{") }
                    .compactMap { $0.split(separator: "\"").dropFirst().first.map(String.init) })
            #expect(operations.count == StatsReport.labelledOperations + 2, "\(family)")  // busiest, Op299, other
            #expect(operations.contains("other") && operations.contains("Op299"))
            #expect(text.contains(family + #"_count{operation="other",cache="miss"} "#))
        }
    }

    @Test func knownSeriesExistFromTheStartAtZero() {
        let empty = StatsReportSample.empty().prometheus()
        var expected = ["hit", "stale", "miss", "bypass"].map { #"breakwater_requests_total{cache="\#($0)"} 0"# }
        expected += GraphQLErrorResponse.answeredStatuses.map { #"breakwater_responses_total{status="\#($0)"} 0"# }
        expected += GraphQLErrorResponse.answeredCodes.map { #"breakwater_errors_total{code="\#($0)"} 0"# }
        expected += BypassReason.allCases.map { #"breakwater_bypass_total{reason="\#($0.rawValue)"} 0"# }
        expected += UpstreamErrorReason.allCases.map { #"breakwater_upstream_errors_total{reason="\#($0.rawValue)"} 0"# }
        expected += ["success", "failure"].map { #"breakwater_config_reloads_total{result="\#($0)"} 0"# }
        let lines = Set(empty.split(separator: "\n").map(String.init))
        for line in expected { #expect(lines.contains(line), "\(line)") }
        #expect(expected.contains(#"breakwater_responses_total{status="502"} 0"#))
        #expect(expected.contains(#"breakwater_errors_total{code="ORIGIN_ERROR"} 0"#))
    }

    @Test func countedSeriesKeepTheirFiguresBesideTheZeros() {
        #expect(text.contains("\n" + #"breakwater_responses_total{status="502"} 1"# + "\n"))
        #expect(text.contains("\n" + #"breakwater_responses_total{status="504"} 0"# + "\n"))
        #expect(text.contains("\n" + #"breakwater_errors_total{code="BAD_REQUEST"} 1"# + "\n"))
        #expect(text.contains("\n" + #"breakwater_upstream_errors_total{reason="timeout"} 1"# + "\n"))
        #expect(text.contains("\n" + #"breakwater_upstream_errors_total{reason="5xx"} 1"# + "\n"))
        #expect(text.contains("\n" + #"breakwater_bypass_total{reason="zero-ttl"} 1"# + "\n"))
    }

    @Test func operationLabelValuesAreEscaped() {
        #expect(text.contains(#"breakwater_operation_requests_total{operation="Launch \"92\"\n"} 1"#))
        #expect(text.contains(#"breakwater_operation_requests_total{operation="(anonymous)"} 3"#))
        var stats = RequestStatistics()
        stats.recordRequest(operationName: #"a\b"#, cache: nil, duration: .zero)
        let report = StatsReport(
            uptime: .zero, requests: stats, cache: StoreStatistics(), apqEntries: 0, apqRegistered: 0, coalesced: 0
        )
        #expect(report.prometheus().contains(#"{operation="a\\b"} 1"#))
    }

    @Test func emptyReportStillListsEveryFamily() {
        let empty = StatsReportSample.empty().prometheus()
        for family in Self.families {
            #expect(empty.contains("# TYPE \(family.name) \(family.type)\n"))
        }
    }

    /// The samples of one series name, as (label text, value text).
    private func samples(named name: String) -> [(labels: String, value: String)] {
        text.split(separator: "\n").compactMap { line in
            guard !line.hasPrefix("#"), let space = line.lastIndex(of: " ") else { return nil }
            let series = line[..<space]
            let value = String(line[line.index(after: space)...])
            if series == name { return ("", value) }
            guard series.hasPrefix(name + "{"), series.hasSuffix("}") else { return nil }
            return (String(series.dropFirst(name.count + 1).dropLast()), value)
        }
    }
}
