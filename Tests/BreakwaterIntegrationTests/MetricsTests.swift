// `/metrics` against the real binary (docs/OPERATING.md), read by the reference Prometheus parser
// (Python prometheus_client, installed by `make python-deps`): build info, responses by status,
// error codes, process figures, and an operation label that stays bounded.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct MetricsTests {
    /// Runs scripts/check-metrics.py on `metrics`; nil when Python has no pip to install the parser.
    static func parse(_ metrics: String, expecting: [String] = []) throws -> (status: Int32, output: String)? {
        if try run(["python3", "-c", "import prometheus_client"], input: "").status != 0 {
            guard try run(["python3", "-m", "pip", "--version"], input: "").status == 0 else { return nil }
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
        ]
        guard let (status, output) = try Self.parse(metrics, expecting: expected) else { return }
        #expect(status == 0, "\(output)\n\(metrics)")
        #expect(metrics.contains(#"breakwater_client_requests_total{client_name="ios \"app\"",client_version=""} 2"#))
        #expect(metrics.contains(#"breakwater_errors_total{code="BAD_REQUEST"} 1"#) || metrics.contains("breakwater_errors_total{code=\""))
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
