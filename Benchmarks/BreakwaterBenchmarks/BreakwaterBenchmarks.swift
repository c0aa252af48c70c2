// Micro-benchmarks of the core's hot path, with no sockets: request parsing, variables
// canonicalisation, key hashing, the response store, and the endpoint decision with and without
// the per-loop memo. Run with `make microbench`; compare runs with the plugin's baselines.

import Benchmark
import BreakwaterCore
import BreakwaterServer

let benchmarks: @Sendable () -> Void = {
    // Every benchmark runs 1,000 operations per iteration; the table reports per operation (`*`).
    let configuration = Benchmark.Configuration(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    // MARK: Request parsing

    Benchmark("GraphQLRequestParser.parse hashed GET", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? GraphQLRequestParser.parse(Fixture.hashedGET))
        }
    }

    Benchmark("GraphQLRequestParser.parse POST query+variables", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? GraphQLRequestParser.parse(Fixture.post))
        }
    }

    // MARK: Variables and keys

    Benchmark("Variables parse + JSONWriter.canonical", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole((try? JSONParser.parse(Fixture.variablesText)).map(JSONWriter.canonical))
        }
    }

    let hasher = OpenSSLSHA256()
    Benchmark("CacheKey.make (OpenSSL SHA-256)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(
                CacheKey.make(
                    document: Fixture.searchDigest, operationName: "SearchLaunches",
                    canonicalVariables: Fixture.canonicalVariables, scope: nil, hasher: hasher))
        }
    }

    // MARK: Response store

    var nextLookup = 0
    Benchmark(
        "ResponseStore.lookup hit (10k entries of 1 KiB)", configuration: configuration,
        closure: { benchmark in
            let keys = Fixture.filledStoreKeys
            for _ in benchmark.scaledIterations {
                blackHole(Fixture.filledStore.lookup(keys[nextLookup], now: Fixture.now))
                nextLookup = nextLookup == keys.count - 1 ? 0 : nextLookup + 1
            }
        },
        setup: { precondition(Fixture.filledStore.statistics.entries == Fixture.filledStoreKeys.count) })

    var nextStore = 0
    Benchmark(
        "ResponseStore.store with eviction (full, 1 KiB)", configuration: configuration,
        closure: { benchmark in
            let entries = Fixture.churnEntries
            for _ in benchmark.scaledIterations {
                blackHole(Fixture.churnStore.store(entries[nextStore], now: Fixture.now))
                nextStore = nextStore == entries.count - 1 ? 0 : nextStore + 1
            }
        },
        setup: {
            // Fill the store once round the pool, so that every measured store evicts.
            for entry in Fixture.churnEntries { Fixture.churnStore.store(entry, now: Fixture.now) }
            precondition(Fixture.churnStore.statistics.evictions > 0)
        })

    // MARK: The request flow for a hashed GET of a registered document (a miss: nothing stored)

    Benchmark("RequestFlow.start hashed GET, no memo", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            var flow = RequestFlow(request: Fixture.hashedGET, environment: Fixture.environment, memo: nil)
            blackHole(flow.start())
        }
    }

    let memo = OperationMemo()
    Benchmark(
        "RequestFlow.start hashed GET, memoised", configuration: configuration,
        closure: { benchmark in
            for _ in benchmark.scaledIterations {
                var flow = RequestFlow(request: Fixture.hashedGET, environment: Fixture.environment, memo: memo)
                blackHole(flow.start())
            }
        },
        setup: {
            var flow = RequestFlow(request: Fixture.hashedGET, environment: Fixture.environment, memo: memo)
            guard case .join = flow.start(), memo.count == 1
            else { preconditionFailure("the hashed GET does not resolve; the benchmark would measure an error") }
        })

    // MARK: Schema-aware caching (SchemaBenchmarks.swift)

    schemaBenchmarks(configuration)
}

/// The clock of the benchmarks: the real monotonic one, a fixed wall clock.
private struct BenchmarkClock: FlowClock {
    var now: ContinuousClock.Instant { .now }
    var wallNow: WallClockTime { WallClockTime(millisecondsSinceEpoch: 0) }
}

/// Inputs shaped like real traffic, built once, on first use (outside the measured iterations,
/// through each benchmark's `setup` or its warm-up iteration).
private enum Fixture {
    static let now = ContinuousClock.now
    static let hasher = OpenSSLSHA256()

    // MARK: Requests

    /// Apollo Client's tutorial list query, as it prints it (with `__typename` added).
    static let launchListDocument = """
        query GetLaunchList($pageSize: Int, $after: String) {
          launches(pageSize: $pageSize, after: $after) {
            cursor
            hasMore
            launches {
              ...LaunchTile
              __typename
            }
            __typename
          }
        }

        fragment LaunchTile on Launch {
          __typename
          id
          isBooked
          rocket {
            id
            name
            type
            __typename
          }
          mission {
            name
            missionPatch(size: SMALL)
            __typename
          }
        }
        """

    static let launchListDigest = hasher.sha256(launchListDocument)

    /// What Apollo Client's persisted-query link sends with `useGETForHashedQueries`: no `query`,
    /// then operationName, variables and extensions, each encodeURIComponent-encoded.
    static let hashedGET = HTTPRequest(
        method: "GET",
        target: "/graphql?operationName=GetLaunchList"
            + "&variables=" + percentEncoded(#"{"pageSize":20,"after":"MTU4MzU1NjYzMQ=="}"#)
            + "&extensions="
            + percentEncoded(#"{"persistedQuery":{"version":1,"sha256Hash":"\#(launchListDigest.hex)"}}"#),
        headers: [
            "Host": "api.example.com", "Accept": "*/*", "apollographql-client-name": "web",
            "apollographql-client-version": "1.4.2", "User-Agent": "Mozilla/5.0 (X11; Linux x86_64)",
        ])

    /// A search operation with a nested filter, as a client's POST body carries it.
    static let searchDocument = """
        query SearchLaunches($filter: LaunchFilter, $sort: [LaunchSort!], $pageSize: Int, $after: String) {
          searchLaunches(filter: $filter, sort: $sort, pageSize: $pageSize, after: $after) {
            cursor
            hasMore
            launches { id site isBooked rocket { id name } mission { name missionPatch(size: SMALL) } }
          }
        }
        """

    static let searchDigest = hasher.sha256(searchDocument)

    /// Keys out of order, arrays of objects, numbers, Booleans, null and an escaped string.
    static let variablesText = #"""
        {"pageSize":20,"after":"MTU4MzU1NjYzMQ==","filter":{"site":{"in":["KSC LC 39A","CCAFS SLC 40","VAFB SLC 4E"]},\#
        "rocket":{"type":"FT","reused":true,"name":null},"launchedAfter":"2019-01-01T00:00:00Z",\#
        "mission":{"nameContains":"Starlink \"v1.0\""},"payloadKg":{"min":1200.5,"max":15600}},\#
        "sort":[{"field":"LAUNCH_DATE","direction":"DESC"},{"field":"ID","direction":"ASC"}],\#
        "locale":"en-GB","includeCancelled":false}
        """#

    static let canonicalVariables: [UInt8] = {
        guard let variables = try? JSONParser.parse(variablesText) else { preconditionFailure("bad fixture") }
        return JSONWriter.canonical(variables)
    }()

    static let post = HTTPRequest(
        method: "POST", target: "/graphql",
        headers: [
            "Host": "api.example.com", "Content-Type": "application/json", "Accept": "application/json",
            "apollographql-client-name": "web",
        ],
        body: Array(
            (#"{"operationName":"SearchLaunches","variables":"# + variablesText + #","query":"#
                + quoted(searchDocument) + "}").utf8))

    // MARK: Endpoint

    /// The flow's settings over an empty store.
    static let environment = FlowEnvironment(
        endpoint: endpoint, policy: CachePolicy(Configuration.Cache()), store: ResponseStore(maxBytes: 1 << 20),
        upstreamHeaders: UpstreamHeaders(forwardHeaders: []), hasher: hasher, clock: BenchmarkClock())

    /// The endpoint with default settings and the list query already registered (automatic APQ).
    static let endpoint: GraphQLEndpoint = {
        guard let registry = try? PersistedQueryRegistry(maxEntries: 1_000, store: nil, manifest: nil, hasher: hasher)
        else { preconditionFailure("an in-memory registry cannot fail") }
        registry.register(launchListDigest, document: launchListDocument)
        return GraphQLEndpoint(
            configuration: Configuration(),
            resolver: DocumentResolver(mode: .automatic, registry: registry, hasher: hasher),
            documents: DocumentCache(capacity: 1_000))
    }()

    // MARK: Store

    static let bodyBytes = 1 << 10

    static func entry(_ number: Int) -> CacheEntry {
        let key = CacheKey.make(
            document: launchListDigest, operationName: "GetLaunchList",
            canonicalVariables: Array(#"{"after":"\#(number)","pageSize":20}"#.utf8), scope: nil, hasher: hasher)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: bodyBytes)
        return CacheEntry.make(
            key: key, body: body, contentType: "application/json",
            etag: CacheEntry.makeETag(body: body, hasher: hasher), storedAt: now, ttl: .seconds(3_600),
            staleWhileRevalidate: .seconds(10), staleIfError: .seconds(300),
            documentDigest: launchListDigest, operationName: "GetLaunchList",
            tags: ["Launch:\(number % 500)", "Launch"], isPerUser: false)
    }

    /// 10,000 entries with room to spare (shards fill unevenly), so that none was evicted.
    static let filledStoreKeys: [CacheKey] = (0..<10_000).map { entry($0).key }
    static let filledStore: ResponseStore = {
        let store = ResponseStore(maxBytes: 64 << 20)
        for number in 0..<10_000 { store.store(entry(number), now: now) }
        return store
    }()

    /// Room for about 2,000 entries, stored round a pool of 8,000: each store evicts one entry.
    static let churnEntries: [CacheEntry] = (0..<8_000).map(entry)
    static let churnStore = ResponseStore(maxBytes: 2_000 * churnEntries[0].cost)

    // MARK: Helpers

    /// JavaScript's encodeURIComponent.
    static func percentEncoded(_ text: String) -> String {
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.!~*'()".utf8)
        let hexDigits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.quotedString(text, into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
