// The effective settings as YAML, for `breakwater validate`: the key layout of README "Configuration",
// every value spelled out, so that the output can itself be loaded as a config file.

extension Configuration {
    /// Every effective setting as YAML that `ConfigurationLoader` reads back to an equal value.
    ///
    /// Optional sections (`server.cors`, `server.tls`) appear only when set; strings are always
    /// quoted, since an unquoted `on`, `~` or `#` would read back as something else.
    public var effectiveYAML: String {
        var lines: [String] = []
        func add(_ indent: Int, _ key: String, _ value: String? = nil) {
            let prefix = String(repeating: "  ", count: indent) + key + ":"
            lines.append(value.map { "\(prefix) \($0)" } ?? prefix)
        }

        add(0, "server")
        add(1, "listen", yamlQuoted(server.listen.description))
        add(1, "threads", "\(server.threads)")
        add(1, "graphql_path", yamlQuoted(server.graphqlPath))
        add(1, "max_uri_bytes", "\(server.maxURIBytes)")
        add(1, "max_body_bytes", "\(server.maxBodyBytes)")
        add(1, "max_header_bytes", "\(server.maxHeaderBytes)")
        add(1, "idle_timeout", server.idleTimeout.configText)
        add(1, "header_timeout", server.headerTimeout.configText)
        add(1, "body_timeout", server.bodyTimeout.configText)
        add(1, "max_connections", "\(server.maxConnections)")
        add(1, "max_batch", "\(server.maxBatch)")
        add(1, "shutdown_delay", server.shutdownDelay.configText)
        add(1, "drain_timeout", server.drainTimeout.configText)
        add(1, "compression", "\(server.compression)")
        add(1, "http2", "\(server.http2)")
        add(1, "http2_max_streams", "\(server.http2MaxStreams)")
        if let cors = server.cors {
            add(1, "cors")
            add(2, "allow_origins", yamlList(cors.allowOrigins))
            add(2, "allow_headers", yamlList(cors.allowHeaders))
            add(2, "max_age", cors.maxAge.configText)
        }
        if let tls = server.tls {
            add(1, "tls")
            add(2, "cert", yamlQuoted(tls.cert))
            add(2, "key", yamlQuoted(tls.key))
        }

        add(0, "origin")
        add(1, "url", yamlQuoted(origin.url.description))
        add(1, "timeout", origin.timeout.configText)
        add(1, "max_connections", "\(origin.maxConnections)")
        add(1, "method", origin.method.rawValue)
        add(1, "max_get_uri_bytes", "\(origin.maxGetURIBytes)")
        add(1, "forward_headers", yamlList(origin.forwardHeaders))
        add(1, "tls_verify", "\(origin.tlsVerify)")
        switch origin.schema {
        case .auto: add(1, "schema", "auto")
        case .off: add(1, "schema", "off")
        case .file(let path): add(1, "schema", yamlQuoted(path))
        }

        add(0, "persisted_queries")
        add(1, "mode", persistedQueries.mode.rawValue)
        add(1, "max_entries", "\(persistedQueries.maxEntries)")
        add(1, "max_bytes", "\(persistedQueries.maxBytes)")
        add(1, "max_document_bytes", "\(persistedQueries.maxDocumentBytes)")
        add(1, "manifest", yamlQuoted(persistedQueries.manifest))
        add(1, "store", yamlQuoted(persistedQueries.store))

        add(0, "cache")
        add(1, "max_bytes", "\(cache.maxBytes)")
        add(1, "default_ttl", cache.defaultTTL.configText)
        add(1, "honor_origin_cache_control", "\(cache.honorOriginCacheControl)")
        add(1, "stale_while_revalidate", cache.staleWhileRevalidate.configText)
        add(1, "stale_if_error", cache.staleIfError.configText)
        add(1, "private_headers", yamlList(cache.privateHeaders))
        add(1, "invalidate_on_mutation", "\(cache.invalidateOnMutation)")
        add(1, "entity_tags", cache.entityTags.rawValue)
        add(1, "tag_header", yamlQuoted(cache.tagHeader))
        add(1, "downstream_age", cache.downstreamAge.rawValue)
        add(1, "freshness")
        add(2, "sample", "\(cache.freshness.share)")
        add(2, "max_fetches_per_second", "\(cache.freshness.maxFetchesPerSecond)")
        add(2, "target", "\(cache.freshness.target)")
        add(1, "types", cache.types.isEmpty ? "{}" : nil)
        for (name, policy) in cache.types.sorted(by: { $0.key < $1.key }) {
            add(2, yamlQuoted(name))
            if let ttl = policy.ttl { add(3, "ttl", ttl.configText) }
            if let scope = policy.scope { add(3, "scope", scope.rawValue) }
            add(3, "keys", yamlList(policy.keys))
        }
        add(1, "rules", cache.rules.isEmpty ? "[]" : nil)
        for rule in cache.rules {
            add(2, "- operation", yamlQuoted(rule.operation))
            add(3, "ttl", rule.ttl.configText)
            add(3, "scope", rule.scope.rawValue)
        }

        add(0, "admin")
        add(1, "listen", yamlQuoted(admin.listen.description))
        add(1, "token", yamlQuoted(admin.token))
        add(1, "allowed_hosts", yamlList(admin.allowedHosts))

        add(0, "redis")
        add(1, "url", yamlQuoted(redis.url))
        add(1, "key_prefix", yamlQuoted(redis.keyPrefix))
        add(1, "timeout", redis.timeout.configText)
        add(1, "l2", "\(redis.l2)")
        add(1, "l2_max_entry_bytes", "\(redis.l2MaxEntryBytes)")
        add(1, "purge_log", "\(redis.purgeLog)")
        add(1, "signing_key", yamlQuoted(redis.signingKey))
        add(1, "sentinels", yamlList(redis.sentinels))
        add(1, "master_name", yamlQuoted(redis.masterName))

        add(0, "cdn")
        add(1, "targets", cdn.targets.isEmpty ? "[]" : nil)
        for target in cdn.targets {
            add(2, "- kind", target.kind.rawValue)
            switch target {
            case .varnish(let urls):
                add(3, "urls", yamlList(urls.map(\.description)))
            case .fastly(let service, let token, let soft, let api):
                add(3, "service_id", yamlQuoted(service))
                add(3, "token", yamlQuoted(token))
                add(3, "soft", "\(soft)")
                add(3, "api_url", yamlQuoted(api.description))
            case .cloudflare(let zone, let token, let api):
                add(3, "zone_id", yamlQuoted(zone))
                add(3, "token", yamlQuoted(token))
                add(3, "api_url", yamlQuoted(api.description))
            case .http(let url, let token):
                add(3, "url", yamlQuoted(url.description))
                add(3, "token", yamlQuoted(token))
            }
        }
        add(1, "batch_window", cdn.batchWindow.configText)
        add(1, "timeout", cdn.timeout.configText)
        add(1, "retries", "\(cdn.retries)")
        add(1, "max_queue", "\(cdn.maxQueue)")

        add(0, "logging")
        add(1, "level", logging.level.rawValue)
        add(1, "format", logging.format.rawValue)
        switch logging.accessLog {
        case .file(let path): add(1, "access_log", yamlQuoted(path))
        default: add(1, "access_log", logging.accessLog.configText)
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
