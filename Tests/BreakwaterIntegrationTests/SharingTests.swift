// What is shared, live (docs/SECURITY.md "What is shared"): the real binary in front of an origin
// that says in every answer what it received. A field named in `Connection` neither reaches the
// origin nor keys the cache; coalesced waiters never get an answer that may not be shared; with a
// per-user type the policy fails closed; the proxy's reserved names are refused.

import BreakwaterTesting
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct SharingTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"1\") { id site } }"}"#
    /// No introspection: the origin counts only the clients' requests.
    static let cachedDetail = """
        origin:
          schema: "off"
        persisted_queries:
          store: ""
        cache:
          rules:
            - operation: GetLaunchDetail
              ttl: 30s
        """

    /// An origin answering each request with what it received: its `Accept-Language` (or
    /// `none`) as the site and its `X-Request-Id` as the id, after `delay`, with `headers`; and
    /// a running count of the requests it saw, as the mission's name.
    static func echoingOrigin(delay: Double = 0, headers: String = "", seen: RequestCount) throws -> ScriptedOrigin {
        try ScriptedOrigin { fd, request in
            let count = seen.next()
            let head = String(decoding: request, as: UTF8.self)
            func field(_ name: String) -> String? {
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix(name.lowercased() + ":") }
                    .map { $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces) }
            }
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            let body = #"{"data":{"launch":{"id":"\#(field("X-Request-Id") ?? "")","site":"\#(field("Accept-Language") ?? "none")","mission":{"name":"\#(count)"}}}}"#
            ScriptedOrigin.write(
                fd,
                Array(
                    ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\(headers)"
                        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8))
        }
    }

    private func site(_ response: HTTPClientResponse) -> String? {
        let data = response.jsonObject?["data"] as? [String: Any]
        return (data?["launch"] as? [String: Any])?["site"] as? String
    }

    private func answerID(_ response: HTTPClientResponse) -> String? {
        let data = response.jsonObject?["data"] as? [String: Any]
        return (data?["launch"] as? [String: Any])?["id"] as? String
    }

    @Test func aFieldNamedInConnectionNeitherReachesTheOriginNorKeysTheCache() throws {
        let seen = RequestCount()
        let origin = try Self.echoingOrigin(seen: seen)
        defer { origin.stop() }
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.cachedDetail)

        // Scoped to the hop: the origin answers for no language, and that is the key it is kept under.
        let scoped = try proxy.client.post(
            "/graphql", json: Self.detail, headers: [("Accept-Language", "fr"), ("Connection", "Accept-Language")])
        #expect(scoped.header("X-Cache") == "MISS")
        #expect(site(scoped) == "none")
        // A French client is not served the answer made for no language.
        let french = try proxy.client.post("/graphql", json: Self.detail, headers: [("Accept-Language", "fr")])
        #expect(french.header("X-Cache") == "MISS", "the French key was poisoned by a hop-scoped field")
        #expect(site(french) == "fr")
        let none = try proxy.client.post("/graphql", json: Self.detail)
        #expect(none.header("X-Cache") == "HIT")
        #expect(site(none) == "none")
        #expect(seen.value == 2)
    }

    @Test func aRequestIdNamedInConnectionIsNeitherForwardedNorUsed() throws {
        let seen = RequestCount()
        let origin = try Self.echoingOrigin(seen: seen)
        defer { origin.stop() }
        // Nothing cached: each request reaches the origin.
        let proxy = try ProxyProcess(origin: origin.url, yaml: "origin:\n  schema: \"off\"\npersisted_queries:\n  store: \"\"\n")
        let response = try proxy.client.post(
            "/graphql", json: Self.detail, headers: [("X-Request-Id", "client-chosen-1"), ("Connection", "X-Request-Id")])
        let id = try #require(response.header("X-Request-Id"))
        #expect(id != "client-chosen-1")
        // The origin received the proxy's own id, the one the client was answered with.
        #expect(answerID(response) == id)
        // Not named in Connection: the client's id is kept.
        let kept = try proxy.client.post("/graphql", json: Self.detail, headers: [("X-Request-Id", "client-chosen-2")])
        #expect(kept.header("X-Request-Id") == "client-chosen-2" && answerID(kept) == "client-chosen-2")
    }

    /// Four clients at once, one key, an origin answering `private, no-store`: each must get the
    /// answer fetched for it (the origin sees four requests), never the leader's.
    @Test(arguments: ["Cache-Control: private, no-store\r\n", "Set-Cookie: session=1\r\n"])
    func coalescedWaitersOfAnUnshareableAnswerFetchForThemselves(header: String) throws {
        let seen = RequestCount()
        let origin = try Self.echoingOrigin(delay: 0.4, headers: header, seen: seen)
        defer { origin.stop() }
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.cachedDetail)
        let names = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let response = try? proxy.client.post("/graphql", json: Self.detail)
            let data = response?.jsonObject?["data"] as? [String: Any]
            let mission = (data?["launch"] as? [String: Any])?["mission"] as? [String: Any]
            names.append("\(response?.header("X-Cache") ?? "-") \(mission?["name"] as? String ?? "-")")
        }
        #expect(Set(names.all).count == 4, "answers: \(names.all)")
        #expect(names.all.allSatisfy { $0.hasPrefix("BYPASS ") }, "answers: \(names.all)")
        #expect(seen.value == 4)
    }

    /// With a per-user type and no schema, the policy cannot see the types of any answer: it
    /// stores none shared (fails closed), and coalesced clients each get their own answer.
    @Test func withAPerUserTypeAndNoSchemaNoAnswerIsShared() throws {
        let seen = RequestCount()
        let origin = try Self.echoingOrigin(delay: 0.3, seen: seen)
        defer { origin.stop() }
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: Self.cachedDetail + "\n  types:\n    User: { scope: per-user }\n")
        let names = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let response = try? proxy.client.post("/graphql", json: Self.detail)
            names.append(response?.header("X-Cache") ?? "-")
        }
        #expect(names.all == ["BYPASS", "BYPASS", "BYPASS"])
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "BYPASS")
        #expect(seen.value == 4)
        // The access log says why.
        _ = try proxy.process.waitForLine(containing: "unverified-types", timeout: .seconds(5))
    }

    /// An origin that knows its users by address (no credentials in the request): with `User`
    /// per-user and the schema known, four concurrent clients of `me` each get the answer
    /// fetched for them, never another's.
    @Test func withAPerUserTypeCoalescedClientsEachGetTheirOwnUser() throws {
        let seen = RequestCount()
        let origin = try ScriptedOrigin { fd, _ in
            let count = seen.next()
            Thread.sleep(forTimeInterval: 0.3)
            let body = #"{"data":{"me":{"__typename":"User","id":"u\#(count)","email":"user\#(count)@example.com"}}}"#
            ScriptedOrigin.write(
                fd,
                Array(
                    ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: max-age=60\r\n"
                        + "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8))
        }
        defer { origin.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let schema = directory.appendingPathComponent("schema.graphql")
        try "type Query { me: User }\ntype User { id: ID! email: String }\n".write(to: schema, atomically: true, encoding: .utf8)
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: "origin:\n  schema: \(schema.path)\npersisted_queries:\n  store: \"\"\ncache:\n  types:\n    User: { scope: per-user }\n")
        let me = #"{"query":"query Me { me { __typename id email } }"}"#
        let emails = Collected<String>()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let response = try? proxy.client.post("/graphql", json: me)
            let data = response?.jsonObject?["data"] as? [String: Any]
            emails.append((data?["me"] as? [String: Any])?["email"] as? String ?? "-")
        }
        #expect(Set(emails.all).count == 4, "answers: \(emails.all)")
        #expect(seen.value == 4)
    }

    @Test func aClientDocumentUsingTheReservedPrefixIsRefused() throws {
        let seen = RequestCount()
        let origin = try Self.echoingOrigin(seen: seen)
        defer { origin.stop() }
        let proxy = try ProxyProcess(origin: origin.url, yaml: Self.cachedDetail)
        let response = try proxy.client.post(
            "/graphql", json: #"{"query":"query GetLaunchDetail { launch(id: \"1\") { __bw_typename: id site } }"}"#)
        #expect(response.status == 400)
        #expect(firstError(response).code == "GRAPHQL_VALIDATION_FAILED")
        // In a string it is only text.
        let inString = try proxy.client.post(
            "/graphql", json: #"{"query":"query GetLaunchDetail { launch(id: \"__bw_1\") { id site } }"}"#)
        #expect(inString.status == 200)
        #expect(seen.value == 1)
    }
}

/// Requests an origin saw, counted across its connection threads.
final class RequestCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Counts one more request and returns how many there were.
    func next() -> Int { count.add(1, ordering: .sequentiallyConsistent).newValue }

    var value: Int { count.load(ordering: .sequentiallyConsistent) }
}
