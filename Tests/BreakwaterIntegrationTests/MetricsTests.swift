// `/metrics` against the real binary (SPEC section 6), read by the reference Prometheus parser
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
}
