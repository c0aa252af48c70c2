// Schema-aware caching in front of a third-party origin (README "The origin side": "any GraphQL server"):
// a strawberry-graphql (Python) schema served on loopback (Tests/fixtures/strawberry_origin.py).
// Its clients select no ids, and purges by Type:id and mutations still find every entry.
// Needs the PyPI package `strawberry-graphql` (`make python-deps`); skipped without it.

import BreakwaterTesting
import Foundation
import Testing

/// The strawberry origin process, stopped with the test.
final class StrawberryOrigin: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/strawberry_origin.py").path

    /// Python 3 with strawberry importable.
    static let isAvailable: Bool = pythonImports("strawberry")

    let process: ManagedProcess
    let port: Int
    var url: String { "http://127.0.0.1:\(port)/graphql" }

    init() throws {
        process = ManagedProcess(executable: "/usr/bin/env", arguments: ["python3", Self.script])
        try process.start()
        let line = try process.waitForLine(containing: "strawberry origin listening on", timeout: .seconds(30))
        port = try #require(ManagedProcess.listeningPort(in: line))
    }

    /// GraphQL requests the origin received, its schema introspection excluded.
    func requests() throws -> Int? {
        try HTTPClient(port: port).get("/_count").jsonObject?["requests"] as? Int
    }

    deinit { _ = process.terminate() }
}

@Suite(
    .serialized,
    .enabled(if: StrawberryOrigin.isAvailable, "strawberry-graphql is not installed: run `make python-deps`"))
struct StrawberryOriginTests {
    static let book = #"{"query":"query GetBook { book(id: \"b1\") { title author { name } } }"}"#
    static let books = #"{"query":"query GetBooks { books { title } }"}"#
    static let rename = #"{"query":"mutation Rename { renameBook(id: \"b2\", title: \"Lathe\") { title } }"}"#

    func proxy(_ origin: StrawberryOrigin) throws -> ProxyProcess {
        let yaml = """
            persisted_queries:
              store: ""
            origin:
              schema: auto
            cache:
              tag_header: Surrogate-Key
              rules:
                - operation: GetBook
                  ttl: 5m
                - operation: GetBooks
                  ttl: 5m

            """
        let proxy = try ProxyProcess(origin: origin.url, yaml: yaml, logLevel: "info")
        _ = try proxy.process.waitForLine(containing: "origin schema loaded", timeout: .seconds(30))
        return proxy
    }

    @Test func clientsWithoutIdsGetTheirFieldsAndPurgesByEntityStillFindTheEntries() throws {
        let origin = try StrawberryOrigin()
        let proxy = try proxy(origin)
        let first = try proxy.client.post("/graphql", json: Self.book)
        #expect(first.header("X-Cache") == "MISS")
        #expect(first.text == #"{"data":{"book":{"title":"The Dispossessed","author":{"name":"Ursula K. Le Guin"}}}}"#)
        #expect(first.header("Surrogate-Key")?.hasSuffix("Author Book Author:a1 Book:b1") == true, "\(first.headers)")
        let list = try proxy.client.post("/graphql", json: Self.books)
        #expect(list.text == #"{"data":{"books":[{"title":"The Dispossessed"},{"title":"The Lathe of Heaven"}]}}"#)
        #expect(try proxy.client.post("/graphql", json: Self.book).header("X-Cache") == "HIT")
        #expect(try origin.requests() == 2)

        // Book b1 is in both answers although neither client selected its id.
        let purged = try proxy.admin.post("/purge", json: #"{"type":"Book","id":"b1"}"#)
        #expect(purged.jsonObject?["purged"] as? Int == 2, "\(purged.text)")
        #expect(try proxy.client.post("/graphql", json: Self.book).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.books).header("X-Cache") == "MISS")
    }

    @Test func aMutationThatSelectsNoIdInvalidatesTheListHoldingTheBook() throws {
        let origin = try StrawberryOrigin()
        let proxy = try proxy(origin)
        _ = try proxy.client.post("/graphql", json: Self.book)
        _ = try proxy.client.post("/graphql", json: Self.books)
        let renamed = try proxy.client.post("/graphql", json: Self.rename)
        #expect(renamed.text == #"{"data":{"renameBook":{"title":"Lathe"}}}"#)
        let list = try proxy.client.post("/graphql", json: Self.books)
        #expect(list.header("X-Cache") == "MISS", "Book:b2 was invalidated by the mutation")
        #expect(list.text.contains(#"{"title":"Lathe"}"#))
        #expect(try proxy.client.post("/graphql", json: Self.book).header("X-Cache") == "HIT", "b1's entry stays")
    }
}
