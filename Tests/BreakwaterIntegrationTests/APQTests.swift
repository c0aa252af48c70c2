// Automatic Persisted Queries against the real proxy and demo origin: every row of the
// README's APQ table, and the full Apollo Client flow on the wire.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct APQTests {
    static let launchDetail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site rocket { name } } }"
    static let launches = "query GetLaunches($pageSize: Int) { launches(pageSize: $pageSize) { cursor launches { id } } }"

    @Test func hashOnlyUnknownReturnsPersistedQueryNotFound() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let viaGET = try proxy.client.get(APQ.hashedGET(Self.launchDetail, operationName: "GetLaunchDetail", variables: #"{"id":"1"}"#))
        let viaPOST = try proxy.client.post("/graphql", json: APQ.hashOnlyPOST(Self.launchDetail, operationName: "GetLaunchDetail"))
        for response in [viaGET, viaPOST] {
            #expect(response.status == 200)
            #expect(firstError(response).message == "PersistedQueryNotFound")
            #expect(firstError(response).code == "PERSISTED_QUERY_NOT_FOUND")
            #expect(response.header("Cache-Control") == "private, no-cache, must-revalidate")
        }
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test func mismatchedHashIsRejectedAndNothingRegistered() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let claimed = APQ.hash(Self.launches)
        let body = #"{"query":\#(APQ.jsonString(Self.launchDetail)),"extensions":\#(APQ.extensions(claimed))}"#
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 400)
        #expect(firstError(response).message == "provided sha does not match query")
        #expect(firstError(response).code == "PERSISTED_QUERY_HASH_MISMATCH")
        #expect(response.header("Cache-Control") == "no-store")
        // Neither document was registered under the claimed hash.
        let lookup = try proxy.client.post("/graphql", json: APQ.hashOnlyPOST(Self.launches, operationName: nil))
        #expect(firstError(lookup).code == "PERSISTED_QUERY_NOT_FOUND")
        #expect(try origin.counters()["requests"] as? Int == 0)
    }

    @Test(arguments: ["2", "0", "\"1\"", "null"])
    func unsupportedVersionIsBadRequest(version: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let body = #"{"query":"{ launch(id: \"1\") { id } }","extensions":\#(APQ.extensions(APQ.hash(#"{ launch(id: "1") { id } }"#), version: version))}"#
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 400)
        #expect(firstError(response).message == "Unsupported persisted query version")
        #expect(firstError(response).code == "BAD_REQUEST")
    }

    @Test func missingVersionIsBadRequest() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let body = #"{"extensions":{"persistedQuery":{"sha256Hash":"\#(APQ.hash(Self.launches))"}}}"#
        let response = try proxy.client.post("/graphql", json: body)
        #expect(response.status == 400)
        #expect(firstError(response).message == "Unsupported persisted query version")
    }

    /// Apollo Client with `useGETForHashedQueries`: hashed GET → PersistedQueryNotFound → POST
    /// with query and hash → hashed GET served; for several operations with variables.
    @Test func apolloClientFlowRegistersThenServesHashedGETs() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let operations = [
            (Self.launchDetail, "GetLaunchDetail", #"{"id":"42"}"#),
            (Self.launches, "GetLaunches", #"{"pageSize":2}"#),
        ]
        for (document, name, variables) in operations {
            let first = try proxy.client.get(APQ.hashedGET(document, operationName: name, variables: variables))
            #expect(firstError(first).message == "PersistedQueryNotFound", "\(name)")
            let registered = try proxy.client.post(
                "/graphql", json: APQ.registeringPOST(document, operationName: name, variables: variables))
            #expect(registered.status == 200, "\(name): \(registered.text)")
            #expect(registered.data != nil)
            let served = try proxy.client.get(APQ.hashedGET(document, operationName: name, variables: variables))
            #expect(served.status == 200)
            #expect(served.body == registered.body, "\(name): the hashed GET answers as the query did")
            // The origin got the full document as a POST, never a hash.
            #expect(APQ.withoutReservedSelections(try origin.counters()["lastQuery"] as? String) == document)
        }
        let detail = try proxy.client.get(APQ.hashedGET(Self.launchDetail, operationName: "GetLaunchDetail", variables: #"{"id":"42"}"#))
        #expect((detail.data?["launch"] as? [String: Any])?["id"] as? String == "42")
        let counters = try origin.counters()
        #expect((counters["byMethod"] as? [String: Any])?["GET"] as? Int ?? 0 == 0)
        #expect((counters["byMethod"] as? [String: Any])?["POST"] as? Int == 5)
    }

    @Test func hashIsComparedCaseInsensitively() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        _ = try proxy.client.post("/graphql", json: APQ.registeringPOST(Self.launches, operationName: nil, variables: #"{"pageSize":1}"#))
        let upper = #"{"variables":{"pageSize":1},"extensions":\#(APQ.extensions(APQ.hash(Self.launches).uppercased()))}"#
        let response = try proxy.client.post("/graphql", json: upper)
        #expect(response.status == 200)
        #expect(response.data?["launches"] != nil)
    }

    @Test func documentIdFormsUseTheSameRegistry() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let documentID = "sha256:" + APQ.hash(Self.launchDetail)
        let before = try proxy.client.post("/graphql", json: #"{"documentId":"\#(documentID)","variables":{"id":"3"}}"#)
        #expect(firstError(before).code == "PERSISTED_QUERY_NOT_FOUND")
        _ = try proxy.client.post("/graphql", json: APQ.registeringPOST(Self.launchDetail, operationName: nil, variables: #"{"id":"3"}"#))
        let after = try proxy.client.post("/graphql", json: #"{"documentId":"\#(documentID)","variables":{"id":"3"}}"#)
        #expect((after.data?["launch"] as? [String: Any])?["id"] as? String == "3")
        let viaGET = try proxy.client.get("/graphql?" + URLEncoding.queryString([("documentId", documentID), ("variables", #"{"id":"3"}"#)]))
        #expect(viaGET.body == after.body)
    }

    @Test func registrationsSurviveARestart() throws {
        let origin = try DemoOriginProcess()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let yaml = "persisted_queries:\n  store: \(folder.path)/pq.log\n"
        do {
            let proxy = try ProxyProcess(origin: origin.url, yaml: yaml)
            let registered = try proxy.client.post("/graphql", json: APQ.registeringPOST(Self.launches, operationName: "GetLaunches", variables: #"{"pageSize":1}"#))
            #expect(registered.status == 200)
            #expect(proxy.process.terminate() == 0)
        }
        let restarted = try ProxyProcess(origin: origin.url, yaml: yaml)
        let served = try restarted.client.get(APQ.hashedGET(Self.launches, operationName: "GetLaunches", variables: #"{"pageSize":1}"#))
        #expect(served.status == 200)
        #expect(served.data?["launches"] != nil)
    }

    @Test func plainQueryWithoutHashIsServed() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let viaGET = try proxy.client.get("/graphql?" + URLEncoding.queryString([("query", Self.launchDetail), ("variables", #"{"id":"9"}"#)]))
        #expect((viaGET.data?["launch"] as? [String: Any])?["id"] as? String == "9")
    }
}
