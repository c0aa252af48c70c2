// The effective settings as YAML, for `breakwater validate`: the key layout of README "Configuration",
// every value spelled out, so that the output can itself be loaded as a config file.

extension Configuration {
    /// Every effective setting as YAML that `ConfigurationLoader` reads back to an equal value.
    ///
    /// Optional sections (`server.cors`, `server.tls`) appear only when set; strings are always
    /// quoted, since an unquoted `on`, `~` or `#` would read back as something else.
    public var effectiveYAML: String {
        var lines: [String] = []
        func addName(_ indent: Int, _ key: String, _ value: String? = nil) {
            let prefix = String(repeating: "  ", count: indent) + key + ":"
            lines.append(value.map { "\(prefix) \($0)" } ?? prefix)
        }
        func add(_ indent: Int, _ key: some ConfigurationKey, _ value: String? = nil) {
            addName(indent, key.name, value)
        }
        typealias Key = ConfigurationKeys

        add(0, Key.Section.server)
        add(1, Key.Server.listen, yamlQuoted(server.listen.description))
        add(1, Key.Server.threads, "\(server.threads)")
        add(1, Key.Server.graphqlPath, yamlQuoted(server.graphqlPath))
        add(1, Key.Server.maxURIBytes, "\(server.maxURIBytes)")
        add(1, Key.Server.maxBodyBytes, "\(server.maxBodyBytes)")
        add(1, Key.Server.maxHeaderBytes, "\(server.maxHeaderBytes)")
        add(1, Key.Server.idleTimeout, server.idleTimeout.configText)
        add(1, Key.Server.headerTimeout, server.headerTimeout.configText)
        add(1, Key.Server.bodyTimeout, server.bodyTimeout.configText)
        add(1, Key.Server.maxConnections, "\(server.maxConnections)")
        add(1, Key.Server.maxBatch, "\(server.maxBatch)")
        add(1, Key.Server.shutdownDelay, server.shutdownDelay.configText)
        add(1, Key.Server.drainTimeout, server.drainTimeout.configText)
        add(1, Key.Server.compression, "\(server.compression)")
        add(1, Key.Server.http2, "\(server.http2)")
        add(1, Key.Server.http2MaxStreams, "\(server.http2MaxStreams)")
        if let cors = server.cors {
            add(1, Key.Server.cors)
            add(2, Key.CORS.allowOrigins, yamlList(cors.allowOrigins))
            add(2, Key.CORS.allowHeaders, yamlList(cors.allowHeaders))
            add(2, Key.CORS.maxAge, cors.maxAge.configText)
        }
        if let tls = server.tls {
            add(1, Key.Server.tls)
            add(2, Key.TLS.cert, yamlQuoted(tls.cert))
            add(2, Key.TLS.key, yamlQuoted(tls.key))
        }

        add(0, Key.Section.origin)
        add(1, Key.Origin.url, yamlQuoted(origin.url.description))
        add(1, Key.Origin.timeout, origin.timeout.configText)
        add(1, Key.Origin.maxConnections, "\(origin.maxConnections)")
        add(1, Key.Origin.method, origin.method.rawValue)
        add(1, Key.Origin.maxGetURIBytes, "\(origin.maxGetURIBytes)")
        add(1, Key.Origin.forwardHeaders, yamlList(origin.forwardHeaders))
        add(1, Key.Origin.tlsVerify, "\(origin.tlsVerify)")
        switch origin.schema {
        case .auto: add(1, Key.Origin.schema, "auto")
        case .off: add(1, Key.Origin.schema, "off")
        case .file(let path): add(1, Key.Origin.schema, yamlQuoted(path))
        }

        add(0, Key.Section.persistedQueries)
        add(1, Key.PersistedQueries.mode, persistedQueries.mode.rawValue)
        add(1, Key.PersistedQueries.maxEntries, "\(persistedQueries.maxEntries)")
        add(1, Key.PersistedQueries.maxBytes, "\(persistedQueries.maxBytes)")
        add(1, Key.PersistedQueries.maxDocumentBytes, "\(persistedQueries.maxDocumentBytes)")
        add(1, Key.PersistedQueries.manifest, yamlQuoted(persistedQueries.manifest))
        add(1, Key.PersistedQueries.store, yamlQuoted(persistedQueries.store))

        add(0, Key.Section.cache)
        add(1, Key.Cache.maxBytes, "\(cache.maxBytes)")
        add(1, Key.Cache.defaultTTL, cache.defaultTTL.configText)
        add(1, Key.Cache.honorOriginCacheControl, "\(cache.honorOriginCacheControl)")
        add(1, Key.Cache.staleWhileRevalidate, cache.staleWhileRevalidate.configText)
        add(1, Key.Cache.staleIfError, cache.staleIfError.configText)
        add(1, Key.Cache.privateHeaders, yamlList(cache.privateHeaders))
        add(1, Key.Cache.invalidateOnMutation, "\(cache.invalidateOnMutation)")
        add(1, Key.Cache.entityTags, cache.entityTags.rawValue)
        add(1, Key.Cache.tagHeader, yamlQuoted(cache.tagHeader))
        add(1, Key.Cache.downstreamAge, cache.downstreamAge.rawValue)
        add(1, Key.Cache.snapshot, yamlQuoted(cache.snapshot))
        add(1, Key.Cache.freshness)
        add(2, Key.Freshness.sample, "\(cache.freshness.share)")
        add(2, Key.Freshness.maxFetchesPerSecond, "\(cache.freshness.maxFetchesPerSecond)")
        add(2, Key.Freshness.target, "\(cache.freshness.target)")
        add(1, Key.Cache.types, cache.types.isEmpty ? "{}" : nil)
        for (name, policy) in cache.types.sorted(by: { $0.key < $1.key }) {
            addName(2, yamlQuoted(name))
            if let ttl = policy.ttl { add(3, Key.TypePolicy.ttl, ttl.configText) }
            if let scope = policy.scope { add(3, Key.TypePolicy.scope, scope.rawValue) }
            add(3, Key.TypePolicy.keys, yamlList(policy.keys))
        }
        add(1, Key.Cache.rules, cache.rules.isEmpty ? "[]" : nil)
        for rule in cache.rules {
            addName(2, "- " + Key.CacheRule.operation.name, yamlQuoted(rule.operation))
            add(3, Key.CacheRule.ttl, rule.ttl.configText)
            add(3, Key.CacheRule.scope, rule.scope.rawValue)
        }

        add(0, Key.Section.admin)
        add(1, Key.Admin.listen, yamlQuoted(admin.listen.description))
        add(1, Key.Admin.token, yamlQuoted(admin.token))
        add(1, Key.Admin.allowedHosts, yamlList(admin.allowedHosts))
        add(1, Key.Admin.handoverSocket, yamlQuoted(admin.handoverSocket))

        add(0, Key.Section.redis)
        add(1, Key.Redis.url, yamlQuoted(redis.url))
        add(1, Key.Redis.keyPrefix, yamlQuoted(redis.keyPrefix))
        add(1, Key.Redis.timeout, redis.timeout.configText)
        add(1, Key.Redis.l2, "\(redis.l2)")
        add(1, Key.Redis.l2MaxEntryBytes, "\(redis.l2MaxEntryBytes)")
        add(1, Key.Redis.purgeLog, "\(redis.purgeLog)")
        add(1, Key.Redis.signingKey, yamlQuoted(redis.signingKey))
        add(1, Key.Redis.sentinels, yamlList(redis.sentinels))
        add(1, Key.Redis.masterName, yamlQuoted(redis.masterName))
        add(1, Key.Redis.sentinelPassword, yamlQuoted(redis.sentinelPassword))

        add(0, Key.Section.cdn)
        add(1, Key.CDN.targets, cdn.targets.isEmpty ? "[]" : nil)
        for target in cdn.targets {
            addName(2, "- " + Key.CDNTarget.kind.name, target.kind.rawValue)
            switch target {
            case .varnish(let urls):
                add(3, Key.CDNTarget.urls, yamlList(urls.map(\.description)))
            case .fastly(let service, let token, let soft, let api):
                add(3, Key.CDNTarget.serviceID, yamlQuoted(service))
                add(3, Key.CDNTarget.token, yamlQuoted(token))
                add(3, Key.CDNTarget.soft, "\(soft)")
                add(3, Key.CDNTarget.apiURL, yamlQuoted(api.description))
            case .cloudflare(let zone, let token, let api):
                add(3, Key.CDNTarget.zoneID, yamlQuoted(zone))
                add(3, Key.CDNTarget.token, yamlQuoted(token))
                add(3, Key.CDNTarget.apiURL, yamlQuoted(api.description))
            case .http(let url, let token):
                add(3, Key.CDNTarget.url, yamlQuoted(url.description))
                add(3, Key.CDNTarget.token, yamlQuoted(token))
            }
        }
        add(1, Key.CDN.batchWindow, cdn.batchWindow.configText)
        add(1, Key.CDN.timeout, cdn.timeout.configText)
        add(1, Key.CDN.retries, "\(cdn.retries)")
        add(1, Key.CDN.maxQueue, "\(cdn.maxQueue)")

        add(0, Key.Section.tracing)
        add(1, Key.Tracing.otlpEndpoint, yamlQuoted(tracing.otlpEndpoint?.description ?? ""))
        add(1, Key.Tracing.sampleRatio, "\(tracing.sampleRatio)")

        add(0, Key.Section.logging)
        add(1, Key.Logging.level, logging.level.rawValue)
        add(1, Key.Logging.format, logging.format.rawValue)
        switch logging.accessLog {
        case .file(let path): add(1, Key.Logging.accessLog, yamlQuoted(path))
        default: add(1, Key.Logging.accessLog, logging.accessLog.configText)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A flow list of quoted strings: `["a", "b"]`.
private func yamlList(_ values: [String]) -> String {
    "[" + values.map(yamlQuoted).joined(separator: ", ") + "]"
}

/// A YAML double-quoted scalar; control and line-separator characters are escaped, because YAML
/// would fold or reject them inside quotes.
func yamlQuoted(_ text: String) -> String {
    var quoted = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": quoted += "\\\""
        case "\\": quoted += "\\\\"
        case "\n": quoted += "\\n"
        case "\t": quoted += "\\t"
        case "\r": quoted += "\\r"
        case "\u{00}"..."\u{1F}", "\u{7F}"..."\u{9F}", "\u{2028}", "\u{2029}", "\u{FEFF}":
            let hex = String(scalar.value, radix: 16, uppercase: true)
            quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: quoted.unicodeScalars.append(scalar)
        }
    }
    return quoted + "\""
}
