// The key names of config.yaml (README "Configuration"), each written once: the loader asks for
// them, the effective-settings rendering writes them, and the restart-only list names them by
// their dotted path, all through these constants.

/// The keys of one mapping of config.yaml.
public protocol ConfigurationKey: RawRepresentable<String>, CaseIterable, Hashable, Sendable {
    /// The dotted path of the mapping the keys sit in: "" at the top level, `.*` for each entry of
    /// a mapping of names (`cache.types.*`), `[]` for each item of a list (`cdn.targets[]`).
    static var section: String { get }
}

extension ConfigurationKey {
    /// The name as written in the file (`max_batch`).
    public var name: String { rawValue }

    /// The dotted name (`server.max_batch`), as messages and the restart-only list spell it.
    public var path: String { Self.section.isEmpty ? rawValue : "\(Self.section).\(rawValue)" }
}

/// The keys of config.yaml, one type per mapping.
public enum ConfigurationKeys {
    public enum Section: String, ConfigurationKey {
        case server, origin
        case persistedQueries = "persisted_queries"
        case cache, admin, redis, cdn, tracing, logging
        public static let section = ""
    }

    public enum Server: String, ConfigurationKey {
        case listen, threads
        case graphqlPath = "graphql_path"
        case maxURIBytes = "max_uri_bytes"
        case maxBodyBytes = "max_body_bytes"
        case maxHeaderBytes = "max_header_bytes"
        case idleTimeout = "idle_timeout"
        case headerTimeout = "header_timeout"
        case bodyTimeout = "body_timeout"
        case maxConnections = "max_connections"
        case maxBatch = "max_batch"
        case shutdownDelay = "shutdown_delay"
        case drainTimeout = "drain_timeout"
        case compression, http2
        case http2MaxStreams = "http2_max_streams"
        case cors, tls
        public static var section: String { Section.server.path }
    }

    public enum CORS: String, ConfigurationKey {
        case allowOrigins = "allow_origins"
        case allowHeaders = "allow_headers"
        case maxAge = "max_age"
        public static var section: String { Server.cors.path }
    }

    public enum TLS: String, ConfigurationKey {
        case cert, key
        public static var section: String { Server.tls.path }
    }

    public enum Origin: String, ConfigurationKey {
        case url, timeout
        case maxConnections = "max_connections"
        case method
        case maxGetURIBytes = "max_get_uri_bytes"
        case forwardHeaders = "forward_headers"
        case tlsVerify = "tls_verify"
        case schema
        public static var section: String { Section.origin.path }
    }

    public enum PersistedQueries: String, ConfigurationKey {
        case mode
        case maxEntries = "max_entries"
        case maxBytes = "max_bytes"
        case maxDocumentBytes = "max_document_bytes"
        case manifest, store
        public static var section: String { Section.persistedQueries.path }
    }

    public enum Cache: String, ConfigurationKey {
        case maxBytes = "max_bytes"
        case defaultTTL = "default_ttl"
        case honorOriginCacheControl = "honor_origin_cache_control"
        case staleWhileRevalidate = "stale_while_revalidate"
        case staleIfError = "stale_if_error"
        case privateHeaders = "private_headers"
        case invalidateOnMutation = "invalidate_on_mutation"
        case entityTags = "entity_tags"
        case tagHeader = "tag_header"
        case downstreamAge = "downstream_age"
        case freshness, types, rules, snapshot
        public static var section: String { Section.cache.path }
    }

    public enum Freshness: String, ConfigurationKey {
        case sample
        case maxFetchesPerSecond = "max_fetches_per_second"
        case target
        public static var section: String { Cache.freshness.path }
    }

    /// The policy of one GraphQL type under `cache.types`.
    public enum TypePolicy: String, ConfigurationKey {
        case ttl, scope, keys
        public static var section: String { Cache.types.path + ".*" }
    }

    /// One item of `cache.rules`.
    public enum CacheRule: String, ConfigurationKey {
        case operation, ttl, scope
        public static var section: String { Cache.rules.path + "[]" }
    }

    public enum Admin: String, ConfigurationKey {
        case listen, token
        case allowedHosts = "allowed_hosts"
        case handoverSocket = "handover_socket"
        public static var section: String { Section.admin.path }
    }

    public enum Redis: String, ConfigurationKey {
        case url
        case keyPrefix = "key_prefix"
        case timeout, l2
        case l2MaxEntryBytes = "l2_max_entry_bytes"
        case purgeLog = "purge_log"
        case signingKey = "signing_key"
        case sentinels
        case masterName = "master_name"
        case sentinelPassword = "sentinel_password"
        public static var section: String { Section.redis.path }
    }

    public enum CDN: String, ConfigurationKey {
        case targets
        case batchWindow = "batch_window"
        case timeout, retries
        case maxQueue = "max_queue"
        public static var section: String { Section.cdn.path }
    }

    /// One item of `cdn.targets`; which keys a target takes depends on its kind.
    public enum CDNTarget: String, ConfigurationKey {
        case kind, urls
        case serviceID = "service_id"
        case token, soft
        case apiURL = "api_url"
        case zoneID = "zone_id"
        case url
        public static var section: String { CDN.targets.path + "[]" }
    }

    public enum Tracing: String, ConfigurationKey {
        case otlpEndpoint = "otlp_endpoint"
        case sampleRatio = "sample_ratio"
        public static var section: String { Section.tracing.path }
    }

    public enum Logging: String, ConfigurationKey {
        case level, format
        case accessLog = "access_log"
        public static var section: String { Section.logging.path }
    }
}
