// The typed settings of config.yaml (README.md, "Configuration"). Every default lives here, in one
// place; the YAML layer (ConfigurationLoader) only maps a file onto these values and reports
// file:line errors.

/// Everything Breakwater is configured with.
public struct Configuration: Sendable, Equatable {
    public var server = Server()
    public var origin = Origin()
    public var persistedQueries = PersistedQueries()
    public var cache = Cache()
    public var admin = Admin()
    public var redis = Redis()
    public var cdn = CDN()
    public var tracing = Tracing()
    public var logging = Logging()

    public init() {}

    /// The client-facing HTTP listener.
    public struct Server: Sendable, Equatable {
        /// Address the GraphQL listener binds to.
        public var listen = HostPort(host: "127.0.0.1", port: 8080)
        /// Event loops; 0 means one per core.
        public var threads = 0
        /// Path that GraphQL requests arrive at; every other path gets 404.
        public var graphqlPath = "/graphql"
        /// A request-target longer than this gets 414 (the CDN limit).
        public var maxURIBytes = 32_768
        /// A larger request body gets 413.
        public var maxBodyBytes = ByteSize(1 << 20)
        /// Request line plus headers; must exceed `maxURIBytes`. Larger gets 431.
        public var maxHeaderBytes = ByteSize(64 << 10)
        /// A keep-alive connection idle this long is closed.
        public var idleTimeout = Duration.seconds(60)
        /// Request line and headers must arrive within this (slowloris), else 408.
        public var headerTimeout = Duration.seconds(10)
        /// A request body must arrive within this, else 408.
        public var bodyTimeout = Duration.seconds(30)
        /// Open client connections per process; beyond it new connections are refused at accept.
        public var maxConnections = 10_000
        /// Operations in one JSON-array (batched) POST; more gets 400.
        public var maxBatch = 16
        /// On SIGTERM, `/readyz` turns 503 at once and serving goes on this long before draining.
        public var shutdownDelay = Duration.zero
        /// Gzip answers for clients that accept it.
        public var compression = true
        /// HTTP/2: ALPN `h2` on a TLS listener, the preface (prior knowledge) on a plain one.
        public var http2 = true
        /// Concurrent streams per HTTP/2 connection; more are refused (RST_STREAM REFUSED_STREAM).
        public var http2MaxStreams = 128
        /// How long SIGTERM/SIGINT waits for in-flight requests before exiting.
        public var drainTimeout = Duration.seconds(10)
        /// Browser preflights answered here when set.
        public var cors: CORS?
        /// TLS termination when set.
        public var tls: TLS?
        public init() {}
    }

    /// Cross-origin settings for browsers.
    public struct CORS: Sendable, Equatable {
        public var allowOrigins: [String] = []
        public var allowHeaders: [String] = ["Content-Type", "Authorization", "apollographql-client-name"]
        public var maxAge = Duration.seconds(600)
        public init() {}
    }

    /// Certificate and key (PEM files) for TLS termination.
    public struct TLS: Sendable, Equatable {
        public var cert = ""
        public var key = ""
        public init() {}
    }

    /// The GraphQL server Breakwater sits in front of.
    public struct Origin: Sendable, Equatable {
        public var url = OriginURL(scheme: .http, host: "127.0.0.1", port: 4000, path: "/graphql")
        /// No answer within this time gives 504.
        public var timeout = Duration.seconds(10)
        /// Keep-alive connections per event loop; further requests queue.
        public var maxConnections = 64
        /// POST, or GET while the URI fits `maxGetURIBytes`.
        public var method = OriginMethod.post
        public var maxGetURIBytes = ByteSize(8 << 10)
        /// Client headers passed on to the origin.
        public var forwardHeaders = [
            "Authorization", "Cookie", "Accept-Language", "traceparent", "tracestate", "baggage",
            "apollographql-client-name", "apollographql-client-version",
        ]
        /// Verify the origin's certificate and host name (https origins).
        public var tlsVerify = true
        /// Where the origin's schema comes from.
        public var schema = SchemaSource.auto
        public init() {}
    }

    /// `origin.schema`: introspect the origin, read an SDL file, or do without.
    public enum SchemaSource: Sendable, Equatable {
        /// Introspect the origin at start and every 5 minutes.
        case auto
        case off
        /// An SDL file, resolved against the config file's folder.
        case file(String)
    }

    public enum OriginMethod: String, Sendable, Equatable, CaseIterable {
        case post = "POST"
        case get = "GET"
    }

    /// The persisted-query registry.
    public struct PersistedQueries: Sendable, Equatable {
        public var mode = PersistedQueryMode.automatic
        public var maxEntries = 100_000
        /// Bound on the registered documents' total size.
        public var maxBytes = ByteSize(64 << 20)
        /// A longer query text is refused (413) before it is parsed.
        public var maxDocumentBytes = ByteSize(100 << 10)
        /// Apollo persisted-query manifest or Relay map; empty for none.
        public var manifest = ""
        /// Append-only registry file; empty keeps the registry in memory only. Already resolved
        /// against the config file's folder by the loader.
        public var store = "./data/persisted-queries.log"
        public init() {}
    }

    public enum PersistedQueryMode: String, Sendable, Equatable, CaseIterable {
        case automatic
        case safelist
        case off
    }

    /// The response cache.
    public struct Cache: Sendable, Equatable {
        public var maxBytes = ByteSize(256 << 20)
        public var defaultTTL = Duration.zero
        public var honorOriginCacheControl = true
        public var staleWhileRevalidate = Duration.seconds(10)
        public var staleIfError = Duration.seconds(300)
        public var privateHeaders = ["Authorization", "Cookie"]
        public var invalidateOnMutation = true
        /// Which entities tag a stored entry.
        public var entityTags = EntityTagMode.auto
        /// "" (none), "Surrogate-Key", "Cache-Tag" or "xkey": the header carrying an entry's tags.
        public var tagHeader = ""
        /// How `max-age` and `Age` tell a cache in front how old an answer is.
        public var downstreamAge = DownstreamAge.rfc
        /// Freshness sampling and the suggested TTLs (docs/FRESHNESS.md).
        public var freshness = FreshnessSettings()
        /// Per-type policy, applied when an answer holds that type.
        public var types: [String: TypePolicy] = [:]
        /// First match wins.
        public var rules: [CacheRule] = []
        /// The file the shared entries are written to at stop and read from at start; "" keeps
        /// none (docs/OPERATING.md, "The cache across restarts"). Already resolved against the
        /// config file's folder by the loader.
        public var snapshot = ""
        public init() {}
    }

    /// `cache.entity_tags`: tag by every entity (needs a schema), only selected ones, or none.
    public enum EntityTagMode: String, Sendable, Equatable, CaseIterable {
        case auto
        case selected
        case off
    }

    /// `cache.downstream_age`: `rfc` sends `max-age` = the entry's whole TTL with `Age` (a cache
    /// in front subtracts the age, RFC 9111 §4.2.3); `remaining` sends `max-age` = the TTL left
    /// and no `Age`, for caches in front that ignore `Age` (nginx's `proxy_cache`).
    public enum DownstreamAge: String, Sendable, Equatable, CaseIterable {
        case rfc
        case remaining
    }

    /// The header names `cache.tag_header` accepts besides "".
    public static let tagHeaders = ["Surrogate-Key", "Cache-Tag", "xkey"]

    /// `cache.types.<Type>`: a TTL bound, a scope, and the key fields of the type.
    public struct TypePolicy: Sendable, Equatable {
        public var ttl: Duration?
        public var scope: CacheScope?
        public var keys: [String]
        public init(ttl: Duration? = nil, scope: CacheScope? = nil, keys: [String] = ["id"]) {
            self.ttl = ttl
            self.scope = scope
            self.keys = keys
        }
    }

    /// A TTL rule for one operation.
    public struct CacheRule: Sendable, Equatable {
        public var operation: String
        public var ttl: Duration
        public var scope: CacheScope
        public init(operation: String, ttl: Duration, scope: CacheScope = .public) {
            self.operation = operation
            self.ttl = ttl
            self.scope = scope
        }
    }

    public enum CacheScope: String, Sendable, Equatable, CaseIterable {
        case `public` = "public"
        case perUser = "per-user"
    }

    /// The operators' listener (stats, metrics, purge, health).
    public struct Admin: Sendable, Equatable {
        public var listen = HostPort(host: "127.0.0.1", port: 9090)
        /// When set, admin POSTs need `Authorization: Bearer <token>`. At least
        /// `minimumTokenBytes` long and none of `placeholderTokens`.
        public var token = ""
        /// `Host` values answered besides loopback names and addresses (DNS rebinding guard).
        public var allowedHosts: [String] = []
        /// A Unix socket path where this process hands its listening sockets to a new one
        /// started with `run --takeover` (docs/OPERATING.md); "" = off. Relative paths are
        /// resolved against the config file's folder.
        public var handoverSocket = ""
        public init() {}

        /// A shorter `token` is refused: it could be guessed.
        public static let minimumTokenBytes = 16
        /// A `token` holding any of these (lower-cased) is a template's placeholder, never a secret.
        public static let placeholderTokens = ["change-me", "changeme", "change_me", "replace-me", "replaceme", "replace_me"]
    }

    /// The optional fleet tier.
    public struct Redis: Sendable, Equatable {
        /// `redis://[:password@]host:port[/db]`, `rediss://...` or `unix:///path`; "" for none.
        public var url = ""
        public var keyPrefix = "bw:"
        /// A Redis call slower than this counts as a miss.
        public var timeout = Duration.milliseconds(50)
        /// Second-level response cache shared by the fleet.
        public var l2 = true
        /// Larger answers stay local.
        public var l2MaxEntryBytes = ByteSize(1 << 20)
        /// HMAC-SHA256 key over every L2 entry and registry document written to Redis, checked on
        /// read (a value without the right code is a miss); "" signs nothing. At least
        /// `minimumSigningKeyBytes` long. See docs/FLEET.md, "Trust boundary".
        public var signingKey = ""
        /// Redis Sentinels (`host:port`) that say where the master is; empty: `url`'s host is
        /// the Redis. With sentinels, `url` gives only the password and database (docs/FLEET.md).
        public var sentinels: [String] = []
        /// The master the sentinels watch, by the name they know it under.
        public var masterName = ""
        /// Sent with `AUTH` on every connection to a sentinel, for sentinels that have their own
        /// `requirepass`; "" sends none. Needs `sentinels`; the master's password stays in `url`.
        public var sentinelPassword = ""
        /// Purges kept in Redis for replay after a disconnection (a stream); 0 keeps none.
        public var purgeLog = 100_000
        public init() {}

        /// Whether a fleet tier is configured (`url` or `sentinels`).
        public var isConfigured: Bool { !url.isEmpty || !sentinels.isEmpty }

        /// A shorter `signing_key` is refused: it could be guessed.
        public static let minimumSigningKeyBytes = 16
    }

    /// Log output.
    public struct Logging: Sendable, Equatable {
        public var level = LogLevel.info
        public var format = LogFormat.text
        /// Where access-log lines go.
        public var accessLog = AccessLogDestination.stdout
        public init() {}
    }

    /// `logging.format`: human-readable lines, or one JSON object per line.
    public enum LogFormat: String, Sendable, Equatable, CaseIterable {
        case text
        case json
    }

    /// `logging.access_log`: a stream, a file (reopened on SIGHUP), or nothing.
    public enum AccessLogDestination: Sendable, Equatable {
        case stdout
        case stderr
        /// A path, resolved against the config file's folder.
        case file(String)
        case off

        /// The spelling in config.yaml.
        public var configText: String {
            switch self {
            case .stdout: "stdout"
            case .stderr: "stderr"
            case .file(let path): path
            case .off: "off"
            }
        }
    }

    public enum LogLevel: String, Sendable, Equatable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
    }
}
