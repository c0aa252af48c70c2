// `/metrics` against the real binary (docs/OPERATING.md), read by the reference Prometheus parser
// (Python prometheus_client, installed by `make python-deps`) and by `promtool check metrics`
// (Debian's `prometheus`, installed by scripts/install-deps.sh): build info, responses by status, error codes, process figures, the series that
// exist at 0 from the start, duration histograms by operation and cache, configuration reloads,
// and an operation label that stays bounded.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct MetricsTests {
    /// Runs scripts/check-metrics.py on `metrics`; nil, with a failure recorded, when the parser is
    /// missing (a test that cannot read the exposition must not pass).
    static func parse(_ metrics: String, expecting: [String] = []) throws -> (status: Int32, output: String)? {
        if try run(["python3", "-c", "import prometheus_client"], input: "").status != 0 {
            Issue.record("prometheus_client is missing: run `make python-deps` (scripts/install-python-deps.sh)")
            return nil
        }
        return try run(["python3", "scripts/check-metrics.py"] + expecting, input: metrics)
    }

    static func run(_ arguments: [String], input: String) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe(), stdin = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = stdin
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func theReferenceParserReadsEveryFamilyWithTheExpectedValues() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
        _ = try proxy.client.post("/graphql", json: detail, headers: [("apollographql-client-name", "ios \"app\"")])
        _ = try proxy.client.post("/graphql", json: detail, headers: [("apollographql-client-name", "ios \"app\"")])
        _ = try proxy.client.post("/graphql", json: APQ.hashOnlyPOST("{ unknown }", operationName: nil))
        _ = try proxy.client.post("/graphql", json: "{not json")
        let metrics = try proxy.admin.get("/metrics").text
        let expected = [
            #"breakwater_responses_total{status=200}=3"#, #"breakwater_responses_total{status=400}=1"#,
            #"breakwater_errors_total{code=PERSISTED_QUERY_NOT_FOUND}=1"#,
            #"breakwater_requests_total{cache=hit}=1"#,
            #"breakwater_operation_requests_total{operation=GetLaunchDetail}=2"#,
            #"breakwater_bypass_total{reason=error-answer}=2"#, #"breakwater_errors_total{code=ORIGIN_ERROR}=0"#,
            #"breakwater_upstream_errors_total{reason=5xx}=0"#, #"breakwater_responses_total{status=504}=0"#,
            #"breakwater_request_duration_seconds_count{operation=GetLaunchDetail,cache=hit}=1"#,
            #"breakwater_upstream_duration_seconds_count{operation=GetLaunchDetail,cache=miss}=1"#,
            #"breakwater_config_reloads_total{result=success}=0"#, #"breakwater_errors_total{code=BAD_REQUEST}=1"#,
        ]
        guard let (status, output) = try Self.parse(metrics, expecting: expected) else { return }
        #expect(status == 0, "\(output)\n\(metrics)")
        #expect(metrics.contains(#"breakwater_client_requests_total{client_name="ios \"app\"",client_version=""} 2"#))
        #expect(metrics.contains(#"breakwater_errors_total{code="BAD_REQUEST"} 1"#))
    }

    /// A fresh proxy already lists the series whose labels are known in advance, at 0, so the
    /// first burst of 502s is an increase from 0 and not a new series appearing at 60.
    @Test func knownSeriesExistAtZeroBeforeAnyRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let lines = Set(try proxy.admin.get("/metrics").text.split(separator: "\n").map(String.init))
        let expected = [
            #"breakwater_requests_total{cache="bypass"} 0"#, #"breakwater_responses_total{status="502"} 0"#,
            #"breakwater_responses_total{status="504"} 0"#, #"breakwater_errors_total{code="ORIGIN_ERROR"} 0"#,
            #"breakwater_errors_total{code="ORIGIN_TIMEOUT"} 0"#, #"breakwater_errors_total{code="BAD_REQUEST"} 0"#,
            #"breakwater_bypass_total{reason="graphql-errors"} 0"#, #"breakwater_bypass_total{reason="origin-failure"} 0"#,
            #"breakwater_upstream_errors_total{reason="refused"} 0"#, #"breakwater_upstream_errors_total{reason="5xx"} 0"#,
            #"breakwater_upstream_errors_total{reason="timeout"} 0"#, #"breakwater_config_reloads_total{result="failure"} 0"#,
        ]
        for line in expected { #expect(lines.contains(line), "\(line)") }
    }

    /// The duration histograms carry the bounded `operation` label and `cache`, so a PromQL
    /// `histogram_quantile(..., sum by (le, operation) (...))` names the slow operation.
    @Test func durationHistogramsCarryOperationAndCache() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
        #expect(try proxy.client.post("/graphql", json: detail).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: detail).header("X-Cache") == "HIT")
        let metrics = try proxy.admin.get("/metrics").text
        for series in [
            #"breakwater_request_duration_seconds_count{operation="GetLaunchDetail",cache="miss"} 1"#,
            #"breakwater_request_duration_seconds_count{operation="GetLaunchDetail",cache="hit"} 1"#,
            #"breakwater_upstream_duration_seconds_count{operation="GetLaunchDetail",cache="miss"} 1"#,
            #"breakwater_request_duration_seconds_bucket{operation="GetLaunchDetail",cache="hit",le="+Inf"} 1"#,
        ] {
            #expect(metrics.contains("\n" + series + "\n"), "\(series)\n\(metrics)")
        }
        guard let (status, output) = try Self.parse(metrics) else { return }
        #expect(status == 0, "\(output)")
    }

    /// SIGHUP reloads are counted by result, and the last good one's time moves forward; a
    /// refused file counts as a failure and keeps the time.
    @Test func configReloadsAreCountedByResultWithTheLastSuccessTime() throws {
        let origin = try DemoOriginProcess()
        let base = "persisted_queries:\n  store: \"\"\n"
        let proxy = try ProxyProcess(origin: origin.url, yaml: base, logLevel: "notice")
        func value(_ series: String) throws -> Double? {
            try proxy.admin.get("/metrics").text.split(separator: "\n")
                .first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let timestamp = "breakwater_config_last_reload_success_timestamp_seconds"
        let started = try #require(try value(timestamp))
        #expect(abs(started - Date().timeIntervalSince1970) < 120)
        #expect(try value(#"breakwater_config_reloads_total{result="success"}"#) == 0)
        // The reload's timestamp must be able to differ from the start's.
        #expect(eventually { Date().timeIntervalSince1970 > started + 0.001 })
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        #expect(try value(#"breakwater_config_reloads_total{result="success"}"#) == 1)
        let reloaded = try #require(try value(timestamp))
        #expect(reloaded > started)
        try proxy.rewriteConfig(base + "cache:\n  rulez: []\n")
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "reload failed", timeout: .seconds(5))
        #expect(try value(#"breakwater_config_reloads_total{result="failure"}"#) == 1)
        #expect(try value(timestamp) == reloaded)
        let config = try #require(try proxy.stats()["config"] as? [String: Any])
        #expect(config["reloads"] as? Int == 1)
        #expect(config["reload_failures"] as? Int == 1)
    }

    /// `promtool check metrics` (Debian's `prometheus` package) accepts the exposition after
    /// traffic of every kind: hits, misses, bypasses, errors, an origin failure. Fails where
    /// promtool is missing (scripts/install-deps.sh installs it).
    @Test func promtoolAcceptsTheExposition() throws {
        guard try Self.run(["sh", "-c", "command -v promtool"], input: "").status == 0 else {
            Issue.record("promtool is missing: run scripts/install-deps.sh (Debian's prometheus)")
            return
        }
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#
        _ = try proxy.client.post("/graphql", json: detail)
        _ = try proxy.client.post("/graphql", json: detail)
        _ = try proxy.client.post("/graphql", json: #"{"query":"query Boom { boom }"}"#)
        _ = try proxy.client.post("/graphql", json: "{not json")
        try origin.setFaults(#"{"status": 503, "statusBody": "html"}"#)
        _ = try proxy.client.post("/graphql", json: #"{"query":"query Other { __typename }"}"#)
        let metrics = try proxy.admin.get("/metrics").text
        let (status, output) = try Self.run(["promtool", "check", "metrics"], input: metrics)
        #expect(status == 0, "\(output)")
        #expect(output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "promtool's lint findings: \(output)")
    }

    @Test func processFiguresAreThisProcesssOwn() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let lines = try proxy.admin.get("/metrics").text.split(separator: "\n")
        func value(_ name: String) -> Double? {
            lines.first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
        }
        let resident = try #require(value("process_resident_memory_bytes"))
        #expect(resident > 1_000_000 && resident < 2_000_000_000)
        let fds = try #require(value("process_open_fds"))
        #expect(fds >= 5 && fds < 1000)
        let start = try #require(value("process_start_time_seconds"))
        #expect(abs(start - Date().timeIntervalSince1970) < 120)
        #expect(try #require(value("process_cpu_seconds_total")) > 0)
        #expect(lines.contains { $0.hasPrefix("breakwater_build_info{version=\"") && $0.hasSuffix("} 1") })
    }

    @Test func theOperationLabelStaysBoundedWithConfiguredNamesAlwaysShown() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        // GetLaunchDetail is configured (cache.rules) but requested least; 40 invented names more often.
        for index in 0..<40 {
            for _ in 0..<2 {
                _ = try proxy.client.post("/graphql", json: #"{"query":"query Op\#(index) { __typename }"}"#)
            }
        }
        _ = try proxy.client.post(
            "/graphql", json: #"{"query":"query GetLaunchDetail { launch(id: \"92\") { id } }"}"#)
        let metrics = try proxy.admin.get("/metrics").text
        let series = metrics.split(separator: "\n").filter { $0.hasPrefix("breakwater_operation_requests_total{") }
        #expect(series.count <= 20 + 2 + 1, "\(series.count) series")
        #expect(series.contains { $0.contains(#"operation="GetLaunchDetail""#) })
        #expect(series.contains { $0.contains(#"operation="other""#) })
    }

    /// A request naming an operation its document does not define is refused (400) and its name
    /// is recorded nowhere: 100 of them with 60 KB names leave /stats, /metrics and the dashboard
    /// small. What is recorded, a defined name and the Apollo client's name and version, is cut
    /// to 128 bytes, in the access log too, which still names a requested operation (cut).
    @Test func refusedOperationNamesAreNotRecordedAndKeptNamesAreCutTo128Bytes() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "logging:\n  format: json\n  access_log: stdout\n")
        let client = String(repeating: "c", count: 300), version = String(repeating: "v", count: 300)
        let identity = [("apollographql-client-name", client), ("apollographql-client-version", version)]
        for index in 0..<100 {
            let name = "Refused\(index)" + String(repeating: "N", count: 60_000)
            let body = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { id } }","operationName":"\#(name)"}"#
            let refused = try proxy.client.post(
                "/graphql", json: body, headers: identity + [("X-Request-Id", "refused-\(index)")])
            #expect(refused.status == 400)
            #expect(refused.text.contains("OPERATION_RESOLUTION_FAILURE"))
        }
        let defined = "Defined" + String(repeating: "d", count: 293)
        #expect(try proxy.client.post("/graphql", json: #"{"query":"query \#(defined) { __typename }"}"#).status == 200)

        let stats = try proxy.admin.get("/stats")
        #expect(stats.body.count < 16 << 10, "/stats holds \(stats.body.count) bytes")
        #expect(!stats.text.contains("Refused"))
        let operations = try #require(stats.jsonObject?["operations"] as? [String: Any])
        #expect(Set(operations.keys) == ["(anonymous)", String(defined.prefix(128))], "\(operations.keys)")
        let metrics = try proxy.admin.get("/metrics")
        #expect(metrics.body.count < 256 << 10, "/metrics holds \(metrics.body.count) bytes")
        #expect(!metrics.text.contains("Refused"))
        #expect(metrics.text.contains(#"operation="\#(defined.prefix(128))""#))
        let clientLabels = #"client_name="\#(client.prefix(128))",client_version="\#(version.prefix(128))""#
        #expect(metrics.text.contains("breakwater_client_requests_total{\(clientLabels)} 100"))
        let dashboard = try proxy.admin.get("/")
        #expect(!dashboard.text.contains("Refused"))
        #expect(dashboard.body.count < 256 << 10)

        let line = try LoggingTests.jsonLine(proxy.process, containing: #""request_id":"refused-7""#)
        #expect(line["operation"] as? String == String(("Refused7" + String(repeating: "N", count: 200)).prefix(128)))
        #expect(line["client_name"] as? String == String(client.prefix(128)))
        #expect(line["client_version"] as? String == String(version.prefix(128)))
        #expect(line["error_code"] as? String == "OPERATION_RESOLUTION_FAILURE")
    }
}
