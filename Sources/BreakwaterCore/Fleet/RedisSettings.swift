// The fleet tier's settings (`redis` in config.yaml, README.md) as the Redis tier reads them, with what
// it derives (the longest lease from `origin.timeout`) and what no key sets (a document's lifetime).

/// What the Redis tier needs from the configuration.
package struct RedisSettings: Sendable, Equatable {
    package var endpoint: RedisEndpoint
    /// Prepended to every key and channel, so that several fleets can share one Redis.
    package var keyPrefix = "bw:"
    /// A Redis call slower than this counts as a miss.
    package var timeout = Duration.milliseconds(50)
    /// The second-level response cache; off leaves only the registry and purges shared.
    package var l2 = true
    /// Larger answers stay in the local cache only.
    package var l2MaxEntryBytes = 1 << 20
    /// The longest a fetch under a lease may last (`origin.timeout`): no lease term, renewal or
    /// wait goes beyond it (`LeaseTerm`).
    package var leaseTimeout = Duration.seconds(10)
    /// The HMAC-SHA256 key values are signed with (`redis.signing_key`); empty signs nothing.
    package var signingKey = ""
    /// Purges kept in the purge log for replay (`redis.purge_log`); 0 keeps none.
    package var purgeLogLength = 100_000
    /// How long a registered document stays in Redis after its last registration.
    package var documentLifetime = Duration.seconds(30 * 24 * 3600)
    /// The Redis Sentinels to ask where the master is (`redis.sentinels`), each with
    /// `redis.sentinel_password` as its password; empty: `endpoint`'s address is the Redis. With
    /// sentinels, `endpoint` keeps the master's password and database only.
    package var sentinels: [RedisEndpoint] = []
    /// The master's name at the sentinels (`redis.master_name`).
    package var masterName = ""

    package init(endpoint: RedisEndpoint) {
        self.endpoint = endpoint
    }

    /// The settings of `configuration`, or nil when it sets neither `redis.url` nor `redis.sentinels`.
    package init?(_ configuration: Configuration) throws(RedisEndpointError) {
        let redis = configuration.redis
        guard redis.isConfigured else { return nil }
        // With sentinels the host is theirs to say; the URL, if any, brings the credentials.
        self.init(
            endpoint: redis.url.isEmpty
                ? RedisEndpoint(address: .tcp(host: "", port: 6379)) : try RedisEndpoint(parsing: redis.url))
        sentinels = try redis.sentinels.map { (address) throws(RedisEndpointError) in
            var sentinel = try RedisEndpoint(parsing: "redis://" + address + (Self.hasPort(address) ? "" : ":26379"))
            // Sentinels with their own `requirepass` take `AUTH` before any SENTINEL command.
            sentinel.password = redis.sentinelPassword.isEmpty ? nil : redis.sentinelPassword
            return sentinel
        }
        masterName = redis.masterName
        if !sentinels.isEmpty { endpoint.address = .tcp(host: "", port: 6379) }
        keyPrefix = redis.keyPrefix
        timeout = redis.timeout
        l2 = redis.l2
        l2MaxEntryBytes = redis.l2MaxEntryBytes.bytes
        signingKey = redis.signingKey
        purgeLogLength = redis.purgeLog
        leaseTimeout = configuration.origin.timeout
    }

    /// Whether the master is found through Redis Sentinel.
    package var usesSentinel: Bool { !sentinels.isEmpty }

    /// Whether `address` (`host:port`, `[v6]:port`, or a bare host) names a port.
    private static func hasPort(_ address: String) -> Bool {
        if address.hasPrefix("[") { return address.contains("]:") }
        return address.contains(":")
    }

    /// The key layout under `keyPrefix`.
    package var keys: RedisKeyLayout { RedisKeyLayout(prefix: keyPrefix) }
}
