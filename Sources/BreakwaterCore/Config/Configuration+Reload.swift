// What SIGHUP can change in a running process (docs/DEPLOYING.md, "4. Start, stop, reload"): every
// key but those that shape what was built at start. Those are listed here, once, so a reload logs each one that changed
// by its config name and keeps its running value.

extension Configuration {
    /// A key that needs a restart: its config name and where it lives in the model.
    private struct RestartOnlyKey: Sendable {
        let name: String
        let differs: @Sendable (Configuration, Configuration) -> Bool
        let keep: @Sendable (inout Configuration, Configuration) -> Void

        init<Value: Equatable & Sendable>(_ name: String, _ path: any WritableKeyPath<Configuration, Value> & Sendable) {
            self.name = name
            differs = { $0[keyPath: path] != $1[keyPath: path] }
            keep = { $0[keyPath: path] = $1[keyPath: path] }
        }
    }

    private static let restartOnlyKeys: [RestartOnlyKey] = [
        .init("server.listen", \.server.listen),
        .init("server.threads", \.server.threads),
        .init("server.tls", \.server.tls),
        // A TLS listener's context offers h2 by ALPN as it was built at start.
        .init("server.http2", \.server.http2),
        .init("cache.max_bytes", \.cache.maxBytes),
        .init("persisted_queries.mode", \.persistedQueries.mode),
        .init("persisted_queries.max_entries", \.persistedQueries.maxEntries),
        .init("persisted_queries.max_bytes", \.persistedQueries.maxBytes),
        .init("persisted_queries.manifest", \.persistedQueries.manifest),
        .init("persisted_queries.store", \.persistedQueries.store),
        .init("admin.listen", \.admin.listen),
        .init("redis.url", \.redis.url),
        .init("redis.key_prefix", \.redis.keyPrefix),
        .init("redis.l2", \.redis.l2),
        .init("redis.sentinels", \.redis.sentinels),
        .init("redis.master_name", \.redis.masterName),
        .init("redis.purge_log", \.redis.purgeLog),
        // The fleet's connections and tier are built with these at start.
        .init("redis.timeout", \.redis.timeout),
        .init("redis.l2_max_entry_bytes", \.redis.l2MaxEntryBytes),
        // The fleet's tiers sign and check with the key they were built with.
        .init("redis.signing_key", \.redis.signingKey),
        // The purger's targets, clients and queues are built at start.
        .init("cdn", \.cdn),
    ]

    /// The config names of the keys that need a restart (the rest reload); a key's sub-keys
    /// (`server.tls.cert`) follow it.
    public static var restartOnlyKeyNames: [String] { restartOnlyKeys.map(\.name) }

    /// The keys whose new values in `next` take effect only after a restart, by their config name.
    public func restartOnlyChanges(to next: Configuration) -> [String] {
        Self.restartOnlyKeys.filter { $0.differs(self, next) }.map(\.name)
    }

    /// `next` with every restart-only key kept at this (the running) configuration's value, so
    /// that what the process applies and later compares against is what it actually runs.
    public func reloadable(from next: Configuration) -> Configuration {
        var applied = next
        for key in Self.restartOnlyKeys { key.keep(&applied, self) }
        return applied
    }
}
