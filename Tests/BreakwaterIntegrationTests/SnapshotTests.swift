// The cache across restarts against the real binary (docs/OPERATING.md, "The cache across
// restarts"): a proxy stopped with SIGTERM writes its shared entries, the next one started on the
// same `cache.snapshot` serves them as hits with their ages continued, and a per-user answer
// never comes back from the file.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct SnapshotTests {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"
    static let me = "query Me { me { email } }"

    static func proxy(origin: DemoOriginProcess, snapshot: String) throws -> ProxyProcess {
        try ProxyProcess(
            origin: origin.url,
            yaml: """
                persisted_queries:
                  store: ""
                cache:
                  snapshot: "\(snapshot)"
                  rules:
                    - operation: GetLaunchDetail
                      ttl: 5m
                    - operation: Me
                      ttl: 5m
                      scope: per-user
                """, logLevel: "info")
    }

    static func post(
        _ proxy: ProxyProcess, _ document: String, variables: String = "{}", headers: [(String, String)] = []
    ) throws -> HTTPClientResponse {
        try proxy.client.post(
            "/graphql", json: #"{"query":\#(APQ.jsonString(document)),"variables":\#(variables)}"#, headers: headers)
    }

    @Test func aRestartedProxyServesTheSnapshotsEntriesWithTheirAgesContinued() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.snapshot").path
        let ada = [("Authorization", "ada@example.com")]

        do {
            let first = try Self.proxy(origin: origin, snapshot: path)
            #expect(try Self.post(first, Self.detail, variables: #"{"id":"7"}"#).header("X-Cache") == "MISS")
            #expect(try Self.post(first, Self.me, headers: ada).header("X-Cache") == "MISS")
            #expect(try Self.post(first, Self.me, headers: ada).header("X-Cache") == "HIT")
            Thread.sleep(forTimeInterval: 1.2)
            first.process.signal(SIGTERM)
            #expect(first.process.waitForExit(timeout: .seconds(10)) == 0)
            #expect(first.process.output.contains { $0.contains("cache snapshot written: 1 entries") })
        }
        #expect(FileManager.default.fileExists(atPath: path))
        let originRequests = try origin.counters()["requests"] as? Int ?? -1

        let second = try Self.proxy(origin: origin, snapshot: path)
        #expect(eventually(within: .seconds(2)) {
            second.process.output.contains { $0.contains("cache snapshot loaded 1 entries") }
        })
        #expect(!FileManager.default.fileExists(atPath: path), "a snapshot is read once")
        let snapshot = try #require(try second.stats()["snapshot"] as? [String: Any])
        #expect(snapshot["loaded"] as? Int == 1)
        #expect(snapshot["skipped"] as? Int == 0)
        #expect((snapshot["written_at"] as? Double ?? 0) > 1_700_000_000)
        let hit = try Self.post(second, Self.detail, variables: #"{"id":"7"}"#)
        #expect(hit.header("X-Cache") == "HIT")
        let age = Int(hit.header("Age") ?? "") ?? -1
        #expect(age >= 1 && age < 60, "Age \(age) continues from the first process's store")
        #expect(try origin.counters()["requests"] as? Int == originRequests, "the hit reached no origin")
        // The per-user answer was never written: it is fetched again.
        #expect(try Self.post(second, Self.me, headers: ada).header("X-Cache") == "MISS")
        let metrics = try second.admin.get("/metrics").text
        #expect(metrics.contains("breakwater_snapshot_loaded_entries 1"))
    }

    @Test func aFileThatIsNotASnapshotIsLeftAloneAndTheProxyStillServes() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("cache.snapshot").path
        try "not a snapshot\n".write(toFile: path, atomically: true, encoding: .utf8)
        let proxy = try Self.proxy(origin: origin, snapshot: path)
        #expect(eventually(within: .seconds(2)) {
            proxy.process.output.contains { $0.contains("not a Breakwater cache snapshot") }
        })
        #expect(try Self.post(proxy, Self.detail, variables: #"{"id":"7"}"#).status == 200)
        proxy.process.signal(SIGTERM)
        #expect(proxy.process.waitForExit(timeout: .seconds(10)) == 0)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "not a snapshot\n")
    }
}
