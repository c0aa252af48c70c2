// persisted_queries.mode off and safelist (Apollo manifest and Relay map), README "GraphQL over HTTP rules".

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct PersistedQueryModeTests {
    static let known = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"
    static let unknown = "query Other { launches(pageSize: 1) { cursor } }"

    /// A proxy whose YAML names a manifest file holding `manifest`.
    func proxy(origin: DemoOriginProcess, mode: String, manifest: String? = nil) throws -> (ProxyProcess, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-manifest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var yaml = "persisted_queries:\n  mode: \(mode)\n  store: \"\"\n"
        if let manifest {
            try manifest.write(to: folder.appendingPathComponent("manifest.json"), atomically: true, encoding: .utf8)
            yaml += "  manifest: \(folder.path)/manifest.json\n"
        }
        return (try ProxyProcess(origin: origin.url, yaml: yaml), folder)
    }

    var apolloManifest: String {
        #"{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id":"\#(APQ.hash(Self.known))","name":"GetLaunchDetail","type":"query","body":\#(APQ.jsonString(Self.known))}]}"#
    }

    @Test func modeOffAnswersNotSupportedForAnyHash() throws {
        let origin = try DemoOriginProcess()
        let (proxy, folder) = try proxy(origin: origin, mode: "off")
        defer { try? FileManager.default.removeItem(at: folder) }
        for body in [
            APQ.hashOnlyPOST(Self.known, operationName: nil, variables: #"{"id":"1"}"#),
            APQ.registeringPOST(Self.known, operationName: nil, variables: #"{"id":"1"}"#),
        ] {
            let response = try proxy.client.post("/graphql", json: body)
            #expect(response.status == 200)
            #expect(firstError(response).message == "PersistedQueryNotSupported")
            #expect(firstError(response).code == "PERSISTED_QUERY_NOT_SUPPORTED")
            #expect(response.header("Cache-Control") == "private, no-cache, must-revalidate")
        }
        // Plain queries still work.
        let plain = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(Self.known)),"variables":{"id":"1"}}"#)
        #expect(plain.status == 200)
    }

    @Test func safelistServesManifestOperationsByHashAndByText() throws {
        let origin = try DemoOriginProcess()
        let (proxy, folder) = try proxy(origin: origin, mode: "safelist", manifest: apolloManifest)
        defer { try? FileManager.default.removeItem(at: folder) }
        let byHash = try proxy.client.get(APQ.hashedGET(Self.known, operationName: "GetLaunchDetail", variables: #"{"id":"5"}"#))
        #expect((byHash.data?["launch"] as? [String: Any])?["id"] as? String == "5")
        let byText = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(Self.known)),"variables":{"id":"5"}}"#)
        #expect(byText.body == byHash.body)
    }

    @Test func safelistRefusesUnknownHashesWithOrWithoutQueryAndNeverRegisters() throws {
        let origin = try DemoOriginProcess()
        let (proxy, folder) = try proxy(origin: origin, mode: "safelist", manifest: apolloManifest)
        defer { try? FileManager.default.removeItem(at: folder) }
        for body in [APQ.registeringPOST(Self.unknown, operationName: nil), APQ.hashOnlyPOST(Self.unknown, operationName: nil), APQ.hashOnlyPOST(Self.unknown, operationName: nil)] {
            let response = try proxy.client.post("/graphql", json: body)
            #expect(response.status == 404)
            #expect(firstError(response).code == "PERSISTED_QUERY_NOT_IN_LIST")
            #expect(firstError(response).message?.contains(APQ.hash(Self.unknown)) == true)
        }
        let plain = try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(Self.unknown))}"#)
        #expect(plain.status == 403)
        #expect(firstError(plain).code == "QUERY_NOT_IN_SAFELIST")
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func relayMapServesDocIDs() throws {
        let origin = try DemoOriginProcess()
        let manifest = #"{"relay-42": \#(APQ.jsonString(Self.known))}"#
        let (proxy, folder) = try proxy(origin: origin, mode: "safelist", manifest: manifest)
        defer { try? FileManager.default.removeItem(at: folder) }
        let response = try proxy.client.post("/graphql", json: #"{"doc_id":"relay-42","variables":{"id":"8"}}"#)
        #expect((response.data?["launch"] as? [String: Any])?["id"] as? String == "8")
        let missing = try proxy.client.post("/graphql", json: #"{"doc_id":"relay-43","variables":{"id":"8"}}"#)
        #expect(missing.status == 404)
        #expect(firstError(missing).code == "PERSISTED_QUERY_NOT_IN_LIST")
    }

    @Test func badManifestStopsStartupWithItsFileName() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "{not json".write(to: folder.appendingPathComponent("m.json"), atomically: true, encoding: .utf8)
        try "persisted_queries:\n  mode: safelist\n  manifest: m.json\n  store: \"\"\n".write(
            to: folder.appendingPathComponent("config.yaml"), atomically: true, encoding: .utf8)
        let (status, output) = try runBreakwater([
            "run", "--config", folder.appendingPathComponent("config.yaml").path, "--listen", "127.0.0.1:0",
        ])
        #expect(status != 0)
        #expect(output.contains("m.json"))
    }
}
