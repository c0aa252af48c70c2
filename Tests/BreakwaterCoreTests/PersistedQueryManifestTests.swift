// PersistedQueryManifest: Apollo's manifest and Relay's map, and each way a manifest is refused.

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct PersistedQueryManifestTests {
    static let hasher = SoftwareSHA256()
    static let launches = "query GetLaunches { launches { cursor } }"
    static let book = "mutation BookTrips($ids: [ID]!) { bookTrips(launchIds: $ids) { success } }"

    @Test func apolloManifestFindsDocumentsByIDAndDigest() throws {
        let launchesID = Self.hasher.sha256(Self.launches).hex
        let bookID = Self.hasher.sha256(Self.book).hex
        let json = """
            {"format":"apollo-persisted-query-manifest","version":1,"operations":[
              {"id":"\(launchesID)","name":"GetLaunches","type":"query","body":"\(Self.launches)"},
              {"id":"\(bookID)","name":"BookTrips","type":"mutation","body":"\(Self.book)"}
            ]}
            """
        let manifest = try PersistedQueryManifest(json: Array(json.utf8), file: "manifest.json", hasher: Self.hasher)
        #expect(manifest.format == .apollo)
        #expect(manifest.entries.map(\.id) == [launchesID, bookID])
        #expect(manifest.document(for: launchesID) == Self.launches)
        #expect(manifest.document(for: Self.hasher.sha256(Self.book)) == Self.book)
        #expect(manifest.digests == [Self.hasher.sha256(Self.launches), Self.hasher.sha256(Self.book)])
        #expect(manifest.document(for: "unknown") == nil)
    }

    /// A tool may choose Apollo ids that are not the body's hash: the id still finds the document.
    @Test func apolloIDThatIsNotTheBodyHashStillFindsTheDocument() throws {
        let id = String(repeating: "ab", count: 32)
        let json = """
            {"format":"apollo-persisted-query-manifest","version":1,"operations":[
              {"id":"\(id)","name":"GetLaunches","type":"query","body":"\(Self.launches)"}]}
            """
        let manifest = try PersistedQueryManifest(json: Array(json.utf8), file: "m.json", hasher: Self.hasher)
        #expect(manifest.document(for: SHA256Digest(hex: id)!) == Self.launches)
        #expect(manifest.document(for: Self.hasher.sha256(Self.launches)) == Self.launches)
        #expect(manifest.digests == [Self.hasher.sha256(Self.launches)])
    }

    @Test func relayMapFindsDocumentsByIDOfAnyForm() throws {
        let json = """
            {"3a5e0c2f9b1d": "\(Self.launches)", "BookTripsMutation": "\(Self.book)"}
            """
        let manifest = try PersistedQueryManifest(json: Array(json.utf8), file: "relay.json", hasher: Self.hasher)
        #expect(manifest.format == .relay)
        #expect(manifest.entries.map(\.id) == ["3a5e0c2f9b1d", "BookTripsMutation"])
        #expect(manifest.document(for: "3a5e0c2f9b1d") == Self.launches)
        #expect(manifest.document(for: "BookTripsMutation") == Self.book)
        #expect(manifest.document(for: Self.hasher.sha256(Self.launches)) == Self.launches)
        #expect(manifest.digests.count == 2)
    }

    @Test func manifestIsReadFromFile() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/relay.json"
            PersistedQueryFixtures.write(Array("{\"q1\": \"{__typename}\"}".utf8), to: path)
            let manifest = try PersistedQueryManifest(path: path, hasher: Self.hasher)
            #expect(manifest.file == path)
            #expect(manifest.document(for: "q1") == "{__typename}")
        }
    }

    @Test func missingFileIsReportedWithItsName() {
        let error = #expect(throws: PersistedQueryManifestError.self) {
            try PersistedQueryManifest(path: "/nonexistent/manifest.json", hasher: Self.hasher)
        }
        #expect(error?.problem == .unreadable)
        #expect(error?.description.hasPrefix("persisted-query manifest /nonexistent/manifest.json: ") == true)
    }

    static let validID = String(repeating: "0a", count: 32)

    /// An Apollo manifest, valid but for what `operations` (JSON text) holds.
    static func apollo(_ operations: String) -> String {
        "{\"format\":\"apollo-persisted-query-manifest\",\"version\":1,\"operations\":\(operations)}"
    }

    @Test(arguments: [
        ("{\"format\": ", PersistedQueryManifestError.Problem.notJSON("")),
        ("[\"query { a }\"]", .notAnObject),
        ("{\"format\":\"relay\",\"version\":1,\"operations\":[]}", .unknownFormat("\"relay\"")),
        ("{\"version\":1,\"operations\":[]}", .unknownFormat("missing")),
        ("{\"format\":\"apollo-persisted-query-manifest\",\"version\":2,\"operations\":[]}", .unsupportedVersion("2")),
        ("{\"format\":\"apollo-persisted-query-manifest\",\"operations\":[]}", .unsupportedVersion("missing")),
        (apollo("{}"), .operationsNotAnArray),
        (apollo("[1]"), .operationNotAnObject(index: 0)),
        (
            apollo("[{\"id\":\"\(validID)\",\"type\":\"query\"}]"),
            .operationWithoutBody(index: 0)
        ),
        (
            apollo("[{\"id\":\"abc\",\"body\":\"{a}\"}]"),
            .invalidApolloID(index: 0, id: "abc")
        ),
        (
            apollo("[{\"id\":\"\(String(repeating: "zz", count: 32))\",\"body\":\"{a}\"}]"),
            .invalidApolloID(index: 0, id: String(repeating: "zz", count: 32))
        ),
        (
            apollo("[{\"body\":\"{a}\"}]"),
            .invalidApolloID(index: 0, id: "")
        ),
        (
            apollo("[{\"id\":\"\(validID)\",\"type\":\"fragment\",\"body\":\"{a}\"}]"),
            .unknownOperationType(index: 0, type: "fragment")
        ),
        (
            apollo("[{\"id\":\"\(validID)\",\"body\":\"{a}\"},{\"id\":\"\(validID)\",\"body\":\"{b}\"}]"),
            .duplicateID(validID)
        ),
        ("{\"q1\": \"{a}\", \"q2\": 7}", .relayDocumentNotAString(id: "q2")),
    ])
    func invalidManifestIsRefusedWithFileAndReason(json: String, expected: PersistedQueryManifestError.Problem) {
        let error = #expect(throws: PersistedQueryManifestError.self) {
            try PersistedQueryManifest(json: Array(json.utf8), file: "ops.json", hasher: Self.hasher)
        }
        guard let error else { return }
        if case .notJSON = expected {
            guard case .notJSON = error.problem else {
                Issue.record("expected notJSON, got \(error.problem)")
                return
            }
        } else {
            #expect(error.problem == expected)
        }
        #expect(error.file == "ops.json")
        #expect(error.description.hasPrefix("persisted-query manifest ops.json: "))
    }
}
