// The monitoring files an operator loads (deploy/prometheus/alerts.yml, deploy/grafana/breakwater.json,
// docs/GETTING-STARTED.md): every metric their queries name exists in the exposition of a real
// proxy that has served traffic, so no alert or panel silently stays empty.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct MonitoringFilesTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func read(_ path: String) throws -> String {
        try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    }

    /// `breakwater_*` and `process_*` names in `text`, histogram suffixes removed.
    static func metricNames(in text: String) -> Set<String> {
        let pattern = try! NSRegularExpression(pattern: "\\b(breakwater|process)_[a-z_]+")
        let range = NSRange(text.startIndex..., in: text)
        return Set(
            pattern.matches(in: text, range: range).map { match -> String in
                var name = String(text[Range(match.range, in: text)!])
                for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                    name.removeLast(suffix.count)
                }
                return name
            })
    }

    /// The families a live proxy exposes after a hit, a miss and an error, with a CDN target
    /// (its families exist only then; nothing is purged, so it is never called).
    static func exposedFamilies() throws -> Set<String> {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                persisted_queries:
                  store: ""
                cache:
                  tag_header: Cache-Tag
                cdn:
                  targets:
                    - kind: http
                      url: "http://127.0.0.1:\(FreePort.allocate())/purge"
                """)
        let query = #"{"query":"query GetLaunchDetail { launch(id: \"1\") { id } }"}"#
        _ = try proxy.client.post("/graphql", json: query)
        _ = try proxy.client.post("/graphql", json: #"{"query":"{"}"#)
        let metrics = try proxy.admin.get("/metrics").text
        return Set(
            metrics.split(separator: "\n").compactMap { line -> String? in
                let parts = line.split(separator: " ")
                guard parts.count >= 3, parts[0] == "#", parts[1] == "TYPE" else { return nil }
                return String(parts[2])
            })
    }

    @Test func everyMetricTheAlertsTheDashboardAndTheGuideNameExists() throws {
        let families = try Self.exposedFamilies()
        #expect(families.contains("breakwater_requests_total"), "\(families.sorted())")
        let alerts = try Self.read("deploy/prometheus/alerts.yml")
        let dashboardText = try Self.read("deploy/grafana/breakwater.json")
        let guide = try Self.read("docs/GETTING-STARTED.md")
        for (file, text) in [("alerts.yml", alerts), ("breakwater.json", dashboardText), ("GETTING-STARTED.md", guide)] {
            let named = Self.metricNames(in: text)
            #expect(!named.isEmpty, "\(file) names no metric")
            let missing = named.subtracting(families)
            #expect(missing.isEmpty, "\(file) names metrics that do not exist: \(missing.sorted())")
        }
    }

    @Test func theDashboardIsGrafanaJSONWithAQueryInEveryPanel() throws {
        let data = try #require(try Self.read("deploy/grafana/breakwater.json").data(using: .utf8))
        let dashboard = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(dashboard["title"] as? String == "Breakwater")
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        #expect(panels.count >= 8)
        for panel in panels {
            let targets = panel["targets"] as? [[String: Any]] ?? []
            #expect(!targets.isEmpty && targets.allSatisfy { ($0["expr"] as? String)?.isEmpty == false }, "\(panel["title"] ?? "")")
        }
    }

    /// `promtool check rules` (Debian's `prometheus`, installed by scripts/install-deps.sh).
    @Test func promtoolAcceptsTheAlertRules() throws {
        guard let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else {
            Issue.record("promtool is missing: run scripts/install-deps.sh (Debian's prometheus)")
            return
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: promtool)
        process.arguments = ["check", "rules", Self.repository.appendingPathComponent("deploy/prometheus/alerts.yml").path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
