// The shared tier's settings (`redis` in config.yaml, README.md) as the Redis tier reads them, with what
// it derives (the lease time from `origin.timeout`) and what no key sets (a document's lifetime).

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
    /// How long a proxy that lost the lease for a key waits for the winner's entry.
    package var leaseTimeout = Duration.seconds(10)
    /// The HMAC-SHA256 key values are signed with (`redis.signing_key`); empty signs nothing.
    package var signingKey = ""
    /// Purges kept in the purge log for replay (`redis.purge_log`); 0 keeps none.
    package var purgeLogLength = 100_000
    /// How long a registered document stays in Redis after its last registration.
    package var documentLifetime = Duration.seconds(30 * 24 * 3600)

    package init(endpoint: RedisEndpoint) {
        self.endpoint = endpoint
    }

    /// The settings of `configuration`, or nil when it sets no `redis.url`.
    package init?(_ configuration: Configuration) throws(RedisEndpointError) {
        let redis = configuration.redis
        guard !redis.url.isEmpty else { return nil }
        self.init(endpoint: try RedisEndpoint(parsing: redis.url))
        keyPrefix = redis.keyPrefix
        timeout = redis.timeout
        l2 = redis.l2
        l2MaxEntryBytes = redis.l2MaxEntryBytes.bytes
        signingKey = redis.signingKey
        purgeLogLength = redis.purgeLog
        leaseTimeout = configuration.origin.timeout
    }

    /// The key layout under `keyPrefix`.
    package var keys: RedisKeyLayout { RedisKeyLayout(prefix: keyPrefix) }
}
