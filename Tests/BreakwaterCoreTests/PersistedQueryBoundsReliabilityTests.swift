// Bounds on what one client can make Breakwater hold or parse:
// `persisted_queries.max_document_bytes` (413 before the document is parsed) and
// `persisted_queries.max_bytes` (the registry's documents bounded in bytes, least recently used evicted).

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct PersistedQueryBoundsReliabilityTests {
    private static let hasher = SoftwareSHA256()

    // MARK: - max_document_bytes

    private static func query(bytes: Int) -> String {
        let head = "{ launches { "
        let tail = " } }"
        return head + String(repeating: "a", count: bytes - head.utf8.count - tail.utf8.count) + tail
    }

    private static func post(_ query: String) -> HTTPRequest {
        let body = "{\"query\":\(JSONText.quoted(query))}"
        return HTTPRequest(
            method: "POST", target: "/graphql", headers: ["Content-Type": "application/json"], body: Array(body.utf8))
    }

    private static func get(_ query: String) -> HTTPRequest {
        HTTPRequest(method: "GET", target: "/graphql?" + "query=" + query.replacingSpaces())
    }

    @Test func documentAtTheLimitIsParsedAndOneByteMoreIs413() throws {
        let limit = 1_000
        for request in [Self.post, Self.get] {
            let atLimit = try GraphQLRequestParser.parse(request(Self.query(bytes: limit)), maxDocumentBytes: limit)
            #expect(atLimit.query?.utf8.count == limit)
            let error = #expect(throws: GraphQLErrorResponse.self) {
                try GraphQLRequestParser.parse(request(Self.query(bytes: limit + 1)), maxDocumentBytes: limit)
            }
            #expect(error?.status == 413)
            #expect(error?.code == "DOCUMENT_TOO_LARGE")
            let body = String(decoding: error?.response.body ?? [], as: UTF8.self)
            #expect(body.hasPrefix(#"{"errors":[{"message":"The query document is longer than the limit of 1000 bytes."#))
        }
    }

    @Test func defaultLimitIs100KiB() throws {
        #expect(GraphQLRequestParser.defaultMaxDocumentBytes == 100 * 1024)
        _ = try GraphQLRequestParser.parse(Self.post(Self.query(bytes: 100 * 1024)))
        #expect(throws: GraphQLErrorResponse.self) {
            try GraphQLRequestParser.parse(Self.post(Self.query(bytes: 100 * 1024 + 1)))
        }
    }

    /// The probe's 800 KB document: refused in far less time than parsing it took (1.65 s).
    @Test func an800KBDocumentIsRefusedQuickly() throws {
        let request = Self.post(Self.query(bytes: 800_000))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            #expect(throws: GraphQLErrorResponse.self) { try GraphQLRequestParser.parse(request) }
        }
        print("800 KB document refused in \(elapsed)")
        #expect(elapsed < .milliseconds(500))
    }

    // MARK: - LRUCache byte bound

    @Test func lruEvictsLeastRecentlyUsedUntilTheCostFits() {
        var cache = LRUCache<String, Int>(capacity: 100, maxCost: 10)
        #expect(cache.insert("a", 1, cost: 4).isEmpty)
        #expect(cache.insert("b", 2, cost: 4).isEmpty)
        _ = cache.get("a")
        #expect(cache.insert("c", 3, cost: 4).map(\.key) == ["b"])
        #expect(cache.totalCost == 8)
        #expect(cache.insert("d", 4, cost: 9).map(\.key) == ["a", "c"])
        #expect(cache.totalCost == 9)
        #expect(cache.count == 1)
    }

    @Test func lruRefusesAValueCostlierThanTheWholeBound() {
        var cache = LRUCache<String, Int>(capacity: 100, maxCost: 10)
        cache.insert("a", 1, cost: 5)
        #expect(cache.insert("huge", 2, cost: 11).isEmpty)
        #expect(cache.peek("huge") == nil)
        #expect(cache.peek("a") == 1)
        // Replacing a key with a value that cannot fit removes the old one.
        #expect(cache.insert("a", 3, cost: 11).map(\.key) == ["a"])
        #expect(cache.isEmpty)
        #expect(cache.totalCost == 0)
    }

    @Test func lruReplacementUpdatesTheCostAndRemoveReleasesIt() {
        var cache = LRUCache<String, Int>(capacity: 100, maxCost: 10)
        cache.insert("a", 1, cost: 3)
        cache.insert("b", 2, cost: 3)
        #expect(cache.insert("a", 9, cost: 8).map(\.key) == ["b"])
        #expect(cache.totalCost == 8)
        cache.remove("a")
        #expect(cache.totalCost == 0)
        cache.insert("c", 1, cost: 10)
        cache.removeAll()
        #expect(cache.totalCost == 0)
    }

    // MARK: - Registry max_bytes

    private static func document(_ number: Int, bytes: Int = 1_000) -> String {
        let head = "query Q\(number) { "
        return head + String(repeating: "f", count: bytes - head.utf8.count - 2) + " }"
    }

    /// The probe's flood: registrations of large documents no longer grow memory without bound.
    @Test func registryHoldsAtMostMaxBytesOfDocuments() throws {
        let registry = try PersistedQueryRegistry(
            maxEntries: 100_000, maxBytes: 10_000, store: nil, manifest: nil, hasher: Self.hasher)
        for number in 0..<50 {
            registry.register(Self.hasher.sha256(Self.document(number)), document: Self.document(number))
        }
        #expect(registry.entries == 10)
        #expect(registry.registered == 50)
        #expect(registry.document(for: Self.hasher.sha256(Self.document(49))) != nil)
        #expect(registry.document(for: Self.hasher.sha256(Self.document(39))) == nil)
    }

    @Test func registryKeepsRecentlyUsedDocumentsUnderTheByteBound() throws {
        let registry = try PersistedQueryRegistry(
            maxEntries: 100_000, maxBytes: 3_000, store: nil, manifest: nil, hasher: Self.hasher)
        let digests = (0..<4).map { Self.hasher.sha256(Self.document($0)) }
        for number in 0..<3 { registry.register(digests[number], document: Self.document(number)) }
        _ = registry.document(for: digests[0])
        registry.register(digests[3], document: Self.document(3))
        #expect(registry.document(for: digests[0]) != nil)
        #expect(registry.document(for: digests[1]) == nil)
    }

    @Test func restartLoadsNoMoreThanMaxBytesOfTheStore() throws {
        try PersistedQueryFixtures.withFolder { folder in
            let path = folder + "/store.log"
            let first = try PersistedQueryRegistry(
                maxEntries: 1_000, store: PersistedQueryStore(path: path), manifest: nil, hasher: Self.hasher)
            for number in 0..<20 {
                first.register(Self.hasher.sha256(Self.document(number)), document: Self.document(number))
            }
            first.flush()
            let restarted = try PersistedQueryRegistry(
                maxEntries: 1_000, maxBytes: 5_000, store: PersistedQueryStore(path: path), manifest: nil,
                hasher: Self.hasher)
            #expect(restarted.entries == 5)
            #expect(restarted.document(for: Self.hasher.sha256(Self.document(19))) != nil)
            #expect(restarted.document(for: Self.hasher.sha256(Self.document(14))) == nil)
        }
    }
}

extension String {
    /// Spaces as `+`, the only character of these test documents a query string cannot hold as is.
    fileprivate func replacingSpaces() -> String {
        String(map { $0 == " " ? "+" : $0 })
    }
}
