// A fleet for the live tests: one demo origin, one real redis-server, and N `breakwater`
// processes configured to share it, all on loopback ephemeral ports.

import BreakwaterTesting
import Foundation
import Testing

/// Proxies sharing one Redis in front of one demo origin.
final class FleetStack: @unchecked Sendable {
    static let launches = "query GetLaunches($pageSize: Int) { launches(pageSize: $pageSize) { cursor launches { id site } } }"
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { __typename id site } }"
    static let slow = "query Slow { slow(ms: 400) }"

    let origin: DemoOriginProcess
    let redis: RedisServerProcess
    private(set) var proxies: [ProxyProcess]
    let prefix = "bwfleet-\(UUID().uuidString.prefix(8)):"
    /// Every member's `redis.signing_key`; nil for none.
    let signingKey: String?
    /// Lines added to every member's `cache:` section, and sections added after `redis:`.
    let extraCache: String, extraSections: String

    init(
        proxies count: Int, redisArguments: [String] = [], redisURL: String? = nil, signingKey: String? = nil,
        extraCache: String = "", extraSections: String = ""
    ) throws {
        self.signingKey = signingKey
        self.extraCache = extraCache
        self.extraSections = extraSections
        origin = try DemoOriginProcess()
        redis = try RedisServerProcess(extraArguments: redisArguments)
        proxies = []
        for _ in 0..<count { proxies.append(try makeProxy(redisURL: redisURL)) }
    }

    /// The YAML of a fleet member pointed at `redisURL` (this stack's Redis by default).
    /// No schema: what the fleet shares does not wait on an introspection (with one expected, an
    /// answer stored before it arrives stays out of the fleet tier, docs/SCHEMA.md).
    func yaml(redisURL: String? = nil) -> String {
        """
        origin:
          schema: "off"
        persisted_queries:
          store: ""
        cache:
          stale_while_revalidate: 10s
          stale_if_error: 5m
          rules:
            - operation: GetLaunches
              ttl: 30s
            - operation: GetLaunchDetail
              ttl: 30s
            - operation: Slow
              ttl: 30s
        \(extraCache)
        redis:
          url: \(redisURL ?? redis.url)
          key_prefix: "\(prefix)"
          timeout: 500ms   # generous: on a loaded CI machine a lease call must not become a miss
        """ + (signingKey.map { "\n  signing_key: \"\($0)\"" } ?? "") + extraSections
    }

    func makeProxy(redisURL: String? = nil) throws -> ProxyProcess {
        try ProxyProcess(origin: origin.url, yaml: yaml(redisURL: redisURL), logLevel: "notice")
    }

    /// Replaces proxy `index` by a fresh process (a restart or a deploy).
    func restartProxy(_ index: Int) throws {
        proxies[index] = try makeProxy()
    }

    /// Requests the origin answered for `operation` so far.
    func originRequests(_ operation: String) throws -> Int {
        try origin.requests(operation)
    }

    /// Waits until every proxy reports in `/stats` every loop connected to Redis and the purge
    /// subscriber subscribed.
    func waitUntilConnected(timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            // Every loop's connection and the purge subscriber: a request may land on any loop,
            // and a purge published before a proxy subscribed never reaches it.
            if try proxies.allSatisfy({ proxy in
                guard let redis = try proxy.stats()["redis"] as? [String: Any] else { return false }
                return redis["subscribed"] as? Bool == true
                    && (redis["connections_ready"] as? Int).map { $0 > 0 && $0 == redis["connections"] as? Int } == true
            }) { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Issue.record("the fleet did not connect to Redis within \(timeout)")
    }

    /// The Redis keys of the L2 entries stored so far (their soft-purge marks left out).
    func entryKeys() throws -> [String] {
        try redis.cli("--scan", "--pattern", "\(prefix)g*:e:*").split(separator: "\n").map(String.init)
            .filter { !$0.hasSuffix(":soft") }
    }

    /// A plain POST of `document` with `variables` to `proxy`.
    static func post(_ proxy: ProxyProcess, _ document: String, variables: String = "{}") throws -> HTTPClientResponse {
        try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(document)),"variables":\#(variables)}"#)
    }
}
