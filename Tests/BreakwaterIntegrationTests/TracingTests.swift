// Tracing end to end (docs/TRACING.md): the real binary in front of the demo origin, exporting to
// a local OTLP/HTTP receiver (Tests/fixtures/otlp_receiver.py) that decodes every export into
// opentelemetry-proto's ExportTraceServiceRequest, so what arrives is valid OTLP. Checked: the
// spans of a miss and a hit in the client's trace with their parent links, the `traceparent`
// the origin received, traces Breakwater starts, invalid client values ignored, the pass-through
// with export off, and spans dropped when the collector fails. Needs the PyPI package
// `opentelemetry-proto` (`make python-deps`); skipped without it.

import BreakwaterTesting
import Foundation
import Testing

/// The OTLP receiver process, stopped with the test.
final class OTLPReceiver: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/otlp_receiver.py").path

    /// Python 3 with opentelemetry-proto importable.
    static let isAvailable: Bool = pythonImports("opentelemetry.proto.collector.trace.v1.trace_service_pb2")

    let process: ManagedProcess
    let port: Int
    var endpoint: String { "http://127.0.0.1:\(port)/v1/traces" }

    /// `failing`: the first that many exports are answered 503.
    init(failing: Int? = nil) throws {
        process = ManagedProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", Self.script] + (failing.map { ["--fail", String($0)] } ?? []))
        try process.start()
        let line = try process.waitForLine(containing: "otlp receiver listening on", timeout: .seconds(30))
        port = try #require(ManagedProcess.listeningPort(in: line))
    }

    /// Every span received so far, decoded.
    var spans: [[String: Any]] {
        process.output.filter { $0.hasPrefix("span ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst(5).utf8)) as? [String: Any]
        }
    }

    /// Exports the receiver could not decode as an ExportTraceServiceRequest.
    var invalid: [String] { process.output.filter { $0.hasPrefix("invalid") } }

    /// The spans of `traceID`, once `count` of them arrived (within `within`).
    func spans(ofTrace traceID: String, count: Int, within: Duration = .seconds(10)) throws -> [[String: Any]] {
        #expect(try eventually(within: within) { spans.filter { $0["trace_id"] as? String == traceID }.count >= count })
        return spans.filter { $0["trace_id"] as? String == traceID }
    }

    deinit { _ = process.terminate() }
}

@Suite(
    .serialized,
    .enabled(if: OTLPReceiver.isAvailable, "opentelemetry-proto is not installed: run `make python-deps`"))
struct TracingTests {
    static let clientTrace = "0af7651916cd43dd8448eb211c80319c"
    static let clientSpan = "b7ad6b7169203331"
    static let launches = #"{"query":"query GetLaunches { launches(pageSize: 2) { cursor } }"}"#

    /// A proxy exporting to `receiver`, GetLaunches cached 30 s, no schema (nothing but the
    /// client's own request reaches the origin).
    func proxy(_ origin: DemoOriginProcess, _ receiver: OTLPReceiver?, ratio: Double) throws -> ProxyProcess {
        let tracing = receiver.map { "tracing:\n  otlp_endpoint: \"\($0.endpoint)\"\n  sample_ratio: \(ratio)\n" } ?? ""
        return try ProxyProcess(
            origin: origin.url,
            yaml: """
                origin:
                  schema: "off"
                persisted_queries:
                  store: ""
                cache:
                  freshness:
                    sample: 0
                  rules:
                    - operation: GetLaunches
                      ttl: 30s
                    - operation: Slow
                      ttl: 30s
                \(tracing)
                """)
    }

    static func named(_ name: String, in spans: [[String: Any]]) throws -> [String: Any] {
        try #require(spans.first { $0["name"] as? String == name }, "no span \(name) in \(spans.map { $0["name"] ?? "" })")
    }

    static func attributes(_ span: [String: Any]) -> [String: Any] { span["attributes"] as? [String: Any] ?? [:] }

    static func originHeaders(_ origin: DemoOriginProcess) throws -> [String: String] {
        try #require(try origin.counters()["lastHeaders"] as? [String: String])
    }

    @Test func aMissWithAClientTraceparentIsTracedInTheClientsTraceAndTheOriginGetsTheFetchSpanAsParent() throws {
        let origin = try DemoOriginProcess()
        let receiver = try OTLPReceiver()
        // Ratio 0: only the client's sampled flag makes this trace recorded.
        let proxy = try proxy(origin, receiver, ratio: 0)
        let response = try proxy.client.post(
            "/graphql", json: Self.launches,
            headers: [
                ("traceparent", "00-\(Self.clientTrace)-\(Self.clientSpan)-01"), ("tracestate", "congo=t61rcWkgMzE"),
            ])
        #expect(response.status == 200)
        #expect(response.header("X-Cache") == "MISS")

        let spans = try receiver.spans(ofTrace: Self.clientTrace, count: 3)
        let request = try Self.named("POST /graphql", in: spans)
        let decision = try Self.named("breakwater.cache.decision", in: spans)
        let fetch = try Self.named("breakwater.origin.fetch", in: spans)
        #expect(request["parent_span_id"] as? String == Self.clientSpan, "the request span is the client span's child")
        #expect(request["kind"] as? Int == 2)
        let requestSpan = try #require(request["span_id"] as? String)
        #expect(requestSpan != Self.clientSpan)
        #expect(decision["parent_span_id"] as? String == requestSpan)
        #expect(fetch["parent_span_id"] as? String == requestSpan)
        #expect(fetch["kind"] as? Int == 3)
        #expect(request["trace_state"] as? String == "congo=t61rcWkgMzE")
        #expect(request["service"] as? String == "breakwater")

        let requestAttributes = Self.attributes(request)
        #expect(requestAttributes["http.request.method"] as? String == "POST")
        #expect(requestAttributes["graphql.operation.name"] as? String == "GetLaunches")
        #expect((requestAttributes["breakwater.document.hash"] as? String)?.count == 64)
        #expect(requestAttributes["http.response.status_code"] as? Int == 200)
        #expect(requestAttributes["network.protocol.version"] as? String == "1.1")
        #expect(requestAttributes["breakwater.cache"] as? String == "MISS")
        #expect(Self.attributes(decision)["breakwater.cache.result"] as? String == "MISS")
        #expect((Self.attributes(decision)["breakwater.cache.key"] as? String)?.count == 64)
        let fetchAttributes = Self.attributes(fetch)
        #expect(fetchAttributes["breakwater.origin.connection_reused"] as? Bool == false)
        #expect(fetchAttributes["breakwater.origin.attempt"] as? Int == 1)
        #expect(fetchAttributes["http.response.status_code"] as? Int == 200)
        #expect(fetchAttributes["server.port"] as? Int == origin.port)

        // The origin's traceparent names the origin fetch span: same trace, flags kept, state as received.
        let seen = try Self.originHeaders(origin)
        #expect(seen["traceparent"] == "00-\(Self.clientTrace)-\(try #require(fetch["span_id"] as? String))-01")
        #expect(seen["tracestate"] == "congo=t61rcWkgMzE")

        // A hit of the same query in another trace: its request and cache decision, no origin fetch.
        let hitTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
        let hit = try proxy.client.post(
            "/graphql", json: Self.launches, headers: [("traceparent", "00-\(hitTrace)-00f067aa0ba902b7-01")])
        #expect(hit.header("X-Cache") == "HIT")
        let hitSpans = try receiver.spans(ofTrace: hitTrace, count: 2)
        #expect(Self.attributes(try Self.named("breakwater.cache.decision", in: hitSpans))["breakwater.cache.result"] as? String == "HIT")
        #expect(!hitSpans.contains { $0["name"] as? String == "breakwater.origin.fetch" })
        #expect(receiver.invalid.isEmpty, "\(receiver.invalid)")

        let metrics = try proxy.admin.get("/metrics").text
        #expect(try eventually { try proxy.admin.get("/metrics").text.contains("breakwater_trace_spans_exported_total 5") })
        #expect(metrics.contains("breakwater_trace_spans_dropped_total{reason=\"queue_full\"} 0"))
    }

    @Test func aWaiterOfACoalescedMissShowsItsWaitAndOnlyTheLeaderFetches() throws {
        let origin = try DemoOriginProcess()
        let receiver = try OTLPReceiver()
        let proxy = try proxy(origin, receiver, ratio: 0)
        let traces = ["11111111111111111111111111111111", "22222222222222222222222222222222"]
        let statuses = Collected<Int>()
        concurrently(2) { index in
            // The second starts while the first's fetch (300 ms at the origin) most likely runs.
            if index == 1 { Thread.sleep(forTimeInterval: 0.1) }
            let response = try? proxy.client.post(
                "/graphql", json: #"{"query":"query Slow { slow(ms: 300) }"}"#,
                headers: [("traceparent", "00-\(traces[index])-00f067aa0ba902b7-01")])
            statuses.append(response?.status ?? -1)
        }
        #expect(statuses.all == [200, 200])
        #expect(try origin.requests("Slow") == 1)
        // Whichever came first led the fetch (the second is only likely to start later).
        let spans = try traces.map { try receiver.spans(ofTrace: $0, count: 3) }
        let fetched = spans.map { $0.contains { $0["name"] as? String == "breakwater.origin.fetch" } }
        #expect(fetched.filter { $0 }.count == 1, "one origin fetch, in the leader's trace")
        let waiter = fetched[0] ? spans[1] : spans[0]
        let wait = try Self.named("breakwater.coalesced.wait", in: waiter)
        #expect(wait["parent_span_id"] as? String == (try Self.named("POST /graphql", in: waiter))["span_id"] as? String)
        #expect(Self.attributes(try Self.named("breakwater.cache.decision", in: waiter))["breakwater.cache.result"] as? String == "MISS")
    }

    @Test func withoutAValidClientTraceBreakwaterStartsOneAndTheOriginGetsIt() throws {
        let origin = try DemoOriginProcess()
        let receiver = try OTLPReceiver()
        let proxy = try proxy(origin, receiver, ratio: 1)
        // Version ff is invalid: ignored with its tracestate, as if absent.
        let response = try proxy.client.post(
            "/graphql", json: #"{"query":"query GetLaunch { launch(id: \"7\") { id } }"}"#,
            headers: [("traceparent", "ff-\(Self.clientTrace)-\(Self.clientSpan)-01"), ("tracestate", "a=b")])
        #expect(response.status == 200)
        let seen = try Self.originHeaders(origin)
        let sent = try #require(seen["traceparent"])
        let parts = sent.split(separator: "-").map(String.init)
        try #require(parts.count == 4)
        #expect(parts[0] == "00")
        #expect(parts[1] != Self.clientTrace, "a new trace")
        #expect(parts[3] == "01", "sampled at ratio 1")
        #expect(seen["tracestate"] == nil)
        let spans = try receiver.spans(ofTrace: parts[1], count: 3)
        let request = try Self.named("POST /graphql", in: spans)
        #expect((request["parent_span_id"] as? String ?? "").isEmpty, "a root span")
        #expect(try Self.named("breakwater.origin.fetch", in: spans)["span_id"] as? String == parts[2])
        #expect(receiver.invalid.isEmpty, "\(receiver.invalid)")
    }

    @Test func withExportOffTheClientsTraceStillReachesTheOriginAsAChilds() throws {
        let origin = try DemoOriginProcess()
        let proxy = try proxy(origin, nil, ratio: 1)
        let response = try proxy.client.post(
            "/graphql", json: Self.launches,
            headers: [("traceparent", "00-\(Self.clientTrace)-\(Self.clientSpan)-00"), ("tracestate", "congo=1")])
        #expect(response.status == 200)
        let seen = try Self.originHeaders(origin)
        let sent = try #require(seen["traceparent"])
        #expect(sent.hasPrefix("00-\(Self.clientTrace)-"))
        #expect(sent.hasSuffix("-00"), "flags kept")
        #expect(!sent.contains(Self.clientSpan), "a child span's id, not the client's")
        #expect(seen["tracestate"] == "congo=1")
        #expect(!(try proxy.admin.get("/metrics").text.contains("breakwater_trace_")))
        #expect(try proxy.stats()["tracing"] == nil)
    }

    @Test func spansOfExportsTheCollectorRefusesAreCountedAsDropped() throws {
        let origin = try DemoOriginProcess()
        let receiver = try OTLPReceiver(failing: 1_000)
        let proxy = try proxy(origin, receiver, ratio: 1)
        #expect(try proxy.client.post("/graphql", json: Self.launches).status == 200)
        #expect(
            try eventually(within: .seconds(10)) {
                let tracing = try proxy.stats()["tracing"] as? [String: Any]
                return (tracing?["dropped"] as? [String: Any])?["export_failed"] as? Int ?? 0 >= 3
            })
        let metrics = try proxy.admin.get("/metrics").text
        #expect(metrics.contains("breakwater_trace_exports_total{result=\"failed\"}"))
        #expect(!metrics.contains("breakwater_trace_exports_total{result=\"failed\"} 0\n"))
        #expect(try eventually { proxy.process.output.contains { $0.contains("trace export failed") } })
        // Serving never waits for the collector.
        #expect(try proxy.client.post("/graphql", json: Self.launches).header("X-Cache") == "HIT")
    }
}
