// What SIGHUP can change in a running process (docs/DEPLOYING.md, "4. Start, stop, reload"): every
// key but those that shape what was built at start. Those are listed here, once, so a reload logs each one that changed
// by its config name and keeps its running value.

extension Configuration {
    /// A key that needs a restart: its config name and where it lives in the model.
    private struct RestartOnlyKey: Sendable {
        let name: String
        let differs: @Sendable (Configuration, Configuration) -> Bool
        let keep: @Sendable (inout Configuration, Configuration) -> Void

        init<Value: Equatable & Sendable>(
            _ key: some ConfigurationKey, _ path: any WritableKeyPath<Configuration, Value> & Sendable
        ) {
            name = key.path
            differs = { $0[keyPath: path] != $1[keyPath: path] }
            keep = { $0[keyPath: path] = $1[keyPath: path] }
        }
    }

    private typealias Key = ConfigurationKeys

    private static let restartOnlyKeys: [RestartOnlyKey] = [
        .init(Key.Server.listen, \.server.listen),
        .init(Key.Server.threads, \.server.threads),
        .init(Key.Server.tls, \.server.tls),
        // A TLS listener's context offers h2 by ALPN as it was built at start.
        .init(Key.Server.http2, \.server.http2),
        .init(Key.Cache.maxBytes, \.cache.maxBytes),
        .init(Key.PersistedQueries.mode, \.persistedQueries.mode),
        .init(Key.PersistedQueries.maxEntries, \.persistedQueries.maxEntries),
        .init(Key.PersistedQueries.maxBytes, \.persistedQueries.maxBytes),
        .init(Key.PersistedQueries.manifest, \.persistedQueries.manifest),
        .init(Key.PersistedQueries.store, \.persistedQueries.store),
        .init(Key.Admin.listen, \.admin.listen),
        // The handover socket is made once, at start.
        .init(Key.Admin.handoverSocket, \.admin.handoverSocket),
        .init(Key.Redis.url, \.redis.url),
        .init(Key.Redis.keyPrefix, \.redis.keyPrefix),
        .init(Key.Redis.l2, \.redis.l2),
        .init(Key.Redis.sentinels, \.redis.sentinels),
        .init(Key.Redis.masterName, \.redis.masterName),
        .init(Key.Redis.sentinelPassword, \.redis.sentinelPassword),
        .init(Key.Redis.purgeLog, \.redis.purgeLog),
        // The fleet's connections and tier are built with these at start.
        .init(Key.Redis.timeout, \.redis.timeout),
        .init(Key.Redis.l2MaxEntryBytes, \.redis.l2MaxEntryBytes),
        // The fleet's tiers sign and check with the key they were built with.
        .init(Key.Redis.signingKey, \.redis.signingKey),
        // The purger's targets, clients and queues are built at start.
        .init(Key.Section.cdn, \.cdn),
        // The span exporter, its loop and its connections are built at start.
        .init(Key.Tracing.otlpEndpoint, \.tracing.otlpEndpoint),
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
