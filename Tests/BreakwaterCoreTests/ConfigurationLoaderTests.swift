// ConfigurationLoader, the values it parses (durations, sizes, addresses, URLs) and the
// effective-settings rendering that `breakwater validate` prints.

import Foundation
import Testing

@testable import BreakwaterCore

/// The example of every key with its default (README.md, "Configuration"), comments included.
private let specExample = """
    server:
      listen: "127.0.0.1:8080"
      threads: 0                 # 0 = one event loop per core
      graphql_path: /graphql
      max_uri_bytes: 32768       # request-target longer than this -> 414
      max_body_bytes: 1MiB       # larger body -> 413
      max_header_bytes: 64KiB    # request line + headers; must exceed max_uri_bytes
      idle_timeout: 60s
      header_timeout: 10s        # request line + headers must arrive within this (slowloris) -> 408
      body_timeout: 30s          # a request body must arrive within this -> 408
      max_connections: 10000     # per process; beyond it new connections are refused at accept
      max_batch: 16              # operations in one JSON-array (batched) POST; more -> 400
      shutdown_delay: 0s         # on SIGTERM: /readyz turns 503 at once, serving goes on this long
                                 # (load balancer deregistration), then drain
      compression: true          # gzip answers when the client accepts it (stored compressed once)
      cors:                      # optional: answer browser preflights here
        allow_origins: ["https://app.example.com"]   # or ["*"]
        allow_headers: [Content-Type, Authorization, apollographql-client-name]
        max_age: 10m
      tls:                       # optional: terminate TLS here
        cert: /etc/breakwater/cert.pem
        key:  /etc/breakwater/key.pem
    origin:
      url: "http://127.0.0.1:4000/graphql"   # http or https
      timeout: 10s               # the whole exchange: waiting for a pooled connection, sending,
                                 # and the complete answer (a trickling origin is cut off too) -> 504
      max_connections: 64        # per event loop, kept alive and reused
      method: POST               # POST, or GET: queries go as GET while the URI fits
      max_get_uri_bytes: 8KiB    # with method GET: longer requests are sent as POST
      forward_headers: [Authorization, Cookie, Accept-Language, traceparent, tracestate,
                        baggage, apollographql-client-name, apollographql-client-version]
      tls_verify: true
      schema: auto               # auto: learn the schema by introspecting the origin at start and
                                 # every 5m (failures logged, last good kept); a path: SDL file; off
    persisted_queries:
      mode: automatic            # automatic | safelist | off
      max_entries: 100000        # registry bound; least recently used evicted
      max_bytes: 64MiB           # and a bound on the documents' total size
      max_document_bytes: 100KiB # a longer query text is refused (413) before it is parsed
      manifest: ""               # optional Apollo persisted-query manifest or Relay map (JSON)
      store: ./data/persisted-queries.log   # registry survives restart ("" = memory only); a damaged
                                 # record is skipped and the records after it kept; a file that is
                                 # not a registry store is refused at start, never overwritten;
                                 # relative paths are relative to the config file's folder
    cache:
      max_bytes: 256MiB          # bound on stored response bytes + entry overhead
      default_ttl: 0s            # 0 = only rules or origin Cache-Control make a response cacheable
      honor_origin_cache_control: true
      stale_while_revalidate: 10s
      stale_if_error: 5m
      private_headers: [Authorization, Cookie]
      invalidate_on_mutation: true   # purge entries tagged with the entities a mutation returns
      entity_tags: auto          # auto: tag by every entity the response holds, even when the client
                                 # did not select __typename/id (needs origin.schema); selected: only
                                 # those the client selected; off
      tag_header: ""             # "" | Surrogate-Key | Cache-Tag | xkey: entity and operation tags on
                                 # cacheable answers, for a CDN or Varnish in front to purge by
      downstream_age: rfc        # rfc: max-age = whole TTL + Age; remaining: max-age = TTL left,
                                 # no Age (for caches in front that ignore Age, such as nginx)
      types:                     # per-type policy, applied when a response holds that type
        User: { scope: per-user }  # any User in the answer -> per-user entry
        Launch: { ttl: 5m, keys: [id] }   # entry TTL = min over the types present
      rules:                     # first match wins
        - operation: GetLaunches   # operationName (exact) ...
          ttl: 30s
        - operation: GetLaunchDetail
          ttl: 5m
        - operation: Me
          ttl: 1m
          scope: per-user          # public (default) | per-user
    admin:
      listen: "127.0.0.1:9090"
      token: ""                  # when set, admin POSTs need "Authorization: Bearer <token>"
      allowed_hosts: []          # Host values accepted besides loopback names (e.g. the pod's)
    logging:
      level: info                # trace | debug | info | notice | warning | error
      format: text               # text | json (one JSON object per line, access log included)
      access_log: stdout         # stdout | stderr | a file path (reopened on SIGHUP) | off
                                 # (true = stdout, false = off)
    redis:                       # optional fleet tier for a fleet of proxies (section 7)
      url: ""                    # redis://[:password@]host:port[/db] or unix:///path/redis.sock
      key_prefix: "bw:"
      timeout: 50ms              # a Redis call slower than this counts as a miss, never an error
      l2: true                   # second-level response cache shared by the fleet
      l2_max_entry_bytes: 1MiB
      signing_key: ""            # optional: HMAC-SHA256 over every L2 entry and registry document,
                                 # checked on read (whoever can write to Redis cannot forge answers)
    """

private func parse(_ yaml: String, base: String = "/etc/breakwater") throws(ConfigurationError) -> Configuration {
    try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: base)
}

/// The problems `yaml` is rejected with; empty when it parses.
private func problems(_ yaml: String) -> [ConfigurationError.Problem] {
    do {
        _ = try parse(yaml)
        return []
    } catch {
        return error.problems
    }
}

@Suite struct ConfigurationLoaderTests {
    // MARK: Good files

    @Test func specExampleGivesItsValues() throws {
        let configuration = try parse(specExample)
        let server = configuration.server
        #expect(server.listen == HostPort(host: "127.0.0.1", port: 8080))
        #expect(server.threads == 0)
        #expect(server.graphqlPath == "/graphql")
        #expect(server.maxURIBytes == 32_768)
        #expect(server.maxBodyBytes == ByteSize(1 << 20))
        #expect(server.maxHeaderBytes == ByteSize(64 << 10))
        #expect(server.idleTimeout == .seconds(60))
        #expect(server.headerTimeout == .seconds(10))
        #expect(server.bodyTimeout == .seconds(30))
        #expect(server.maxConnections == 10_000)
        #expect(server.maxBatch == 16)
        #expect(server.shutdownDelay == .zero)
        #expect(server.compression)
        #expect(server.cors?.allowOrigins == ["https://app.example.com"])
        #expect(server.cors?.allowHeaders == ["Content-Type", "Authorization", "apollographql-client-name"])
        #expect(server.cors?.maxAge == .seconds(600))
        #expect(server.tls?.cert == "/etc/breakwater/cert.pem")
        #expect(server.tls?.key == "/etc/breakwater/key.pem")

        let origin = configuration.origin
        #expect(origin.url == OriginURL(scheme: .http, host: "127.0.0.1", port: 4000, path: "/graphql"))
        #expect(origin.timeout == .seconds(10))
        #expect(origin.maxConnections == 64)
        #expect(origin.method == .post)
        #expect(origin.maxGetURIBytes == ByteSize(8192))
        #expect(
            origin.forwardHeaders == [
                "Authorization", "Cookie", "Accept-Language", "traceparent", "tracestate", "baggage",
                "apollographql-client-name", "apollographql-client-version",
            ])
        #expect(origin.forwardHeaders == Configuration.Origin().forwardHeaders)
        #expect(origin.tlsVerify)
        #expect(origin.schema == .auto)

        let registry = configuration.persistedQueries
        #expect(registry.mode == .automatic)
        #expect(registry.maxEntries == 100_000)
        #expect(registry.maxBytes == ByteSize(64 << 20))
        #expect(registry.maxDocumentBytes == ByteSize(100 << 10))
        #expect(registry.manifest == "")
        #expect(registry.store == "/etc/breakwater/data/persisted-queries.log")

        let cache = configuration.cache
        #expect(cache.maxBytes == ByteSize(256 << 20))
        #expect(cache.defaultTTL == .zero)
        #expect(cache.honorOriginCacheControl)
        #expect(cache.staleWhileRevalidate == .seconds(10))
        #expect(cache.staleIfError == .seconds(300))
        #expect(cache.privateHeaders == ["Authorization", "Cookie"])
        #expect(cache.invalidateOnMutation)
        #expect(cache.entityTags == .auto)
        #expect(cache.tagHeader == "")
        #expect(
            cache.types == [
                "User": .init(scope: .perUser),
                "Launch": .init(ttl: .seconds(300), keys: ["id"]),
            ])
        #expect(
            cache.rules == [
                .init(operation: "GetLaunches", ttl: .seconds(30)),
                .init(operation: "GetLaunchDetail", ttl: .seconds(300)),
                .init(operation: "Me", ttl: .seconds(60), scope: .perUser),
            ]
        )

        #expect(configuration.admin.listen == HostPort(host: "127.0.0.1", port: 9090))
        #expect(configuration.admin.token == "")
        #expect(configuration.admin.allowedHosts == [])
        #expect(configuration.redis == Configuration.Redis())
        #expect(configuration.redis.keyPrefix == "bw:")
        #expect(configuration.redis.timeout == .milliseconds(50))
        #expect(configuration.redis.l2)
        #expect(configuration.redis.l2MaxEntryBytes == ByteSize(1 << 20))
        #expect(configuration.logging == Configuration.Logging())
        #expect(configuration.logging.format == .text)
        #expect(configuration.logging.accessLog == .stdout)
    }

    @Test(arguments: ["", "# nothing set yet\n\n   # still nothing\n", "\n\n", "---\n", "~\n", "server:\n"])
    func fileWithoutSettingsGivesDefaults(yaml: String) throws {
        #expect(try parse(yaml, base: ".") == Configuration())
    }

    @Test func settingsOutsideTheExampleAreRead() throws {
        let configuration = try parse(
            """
            server:
              listen: "[::]:8443"
              drain_timeout: 1.5s
            origin:
              method: get                # enum spellings are case-insensitive
              tls_verify: no
            persisted_queries:
              mode: safelist
              manifest: /srv/manifest.json
            admin:
              token: s3cret-0123456789abcdef
            redis:
              url: redis://10.0.0.5:6379
            logging:
              level: debug
              access_log: true
            """
        )
        #expect(configuration.server.listen == HostPort(host: "::", port: 8443))
        #expect(configuration.server.drainTimeout == .milliseconds(1500))
        #expect(configuration.origin.method == .get)
        #expect(!configuration.origin.tlsVerify)
        #expect(configuration.persistedQueries.mode == .safelist)
        #expect(configuration.admin.token == "s3cret-0123456789abcdef")
        #expect(configuration.redis.url == "redis://10.0.0.5:6379")
        #expect(configuration.logging.level == .debug)
        #expect(configuration.logging.accessLog == .stdout)
    }

    @Test func newSettingsOfSectionTwoAreRead() throws {
        let configuration = try parse(
            """
            server:
              header_timeout: 2s
              body_timeout: 3s
              max_connections: 500
              max_batch: 4
              shutdown_delay: 5s
              compression: false
            origin:
              forward_headers: [Authorization]
              schema: schema.graphql
            persisted_queries:
              max_bytes: 8MiB
              max_document_bytes: 10KiB
            cache:
              entity_tags: selected
              tag_header: surrogate-key
              downstream_age: remaining
              types:
                User: { scope: per-user }
                Launch: { ttl: 5m, keys: [id, site] }
                Rocket:
                  ttl: 0s
            admin:
              allowed_hosts: [breakwater-admin.internal, "10.0.0.7:9090"]
            redis:
              url: "redis://:pw@cache:6379/2"
              key_prefix: "edge:"
              timeout: 20ms
              l2: no
              l2_max_entry_bytes: 256KiB
              signing_key: "0123456789abcdef"
            logging:
              format: json
              access_log: logs/access.log
            """
        )
        let server = configuration.server
        #expect(server.headerTimeout == .seconds(2))
        #expect(server.bodyTimeout == .seconds(3))
        #expect(server.maxConnections == 500)
        #expect(server.maxBatch == 4)
        #expect(server.shutdownDelay == .seconds(5))
        #expect(!server.compression)
        #expect(configuration.origin.forwardHeaders == ["Authorization"])
        #expect(configuration.origin.schema == .file("/etc/breakwater/schema.graphql"))
        #expect(configuration.persistedQueries.maxBytes == ByteSize(8 << 20))
        #expect(configuration.persistedQueries.maxDocumentBytes == ByteSize(10 << 10))
        #expect(configuration.cache.entityTags == .selected)
        #expect(configuration.cache.downstreamAge == .remaining)
        #expect(configuration.cache.tagHeader == "Surrogate-Key")
        #expect(
            configuration.cache.types == [
                "User": .init(scope: .perUser),
                "Launch": .init(ttl: .seconds(300), keys: ["id", "site"]),
                "Rocket": .init(ttl: .zero),
            ])
        #expect(configuration.admin.allowedHosts == ["breakwater-admin.internal", "10.0.0.7:9090"])
        #expect(configuration.redis.url == "redis://:pw@cache:6379/2")
        #expect(configuration.redis.keyPrefix == "edge:")
        #expect(configuration.redis.timeout == .milliseconds(20))
        #expect(!configuration.redis.l2)
        #expect(configuration.redis.l2MaxEntryBytes == ByteSize(256 << 10))
        #expect(configuration.redis.signingKey == "0123456789abcdef")
        #expect(configuration.logging.format == .json)
        #expect(configuration.logging.accessLog == .file("/etc/breakwater/logs/access.log"))
        #expect(try parse(configuration.effectiveYAML) == configuration)
    }

    @Test(arguments: [
        ("true", Configuration.AccessLogDestination.stdout), ("false", .off), ("off", .off), ("stdout", .stdout),
        ("stderr", .stderr), ("\"\"", .off), ("/var/log/bw.log", .file("/var/log/bw.log")),
    ])
    func accessLogDestinations(text: String, expected: Configuration.AccessLogDestination) throws {
        #expect(try parse("logging:\n  access_log: \(text)\n").logging.accessLog == expected)
    }

    @Test(arguments: [("auto", Configuration.SchemaSource.auto), ("off", .off), ("/srv/s.graphql", .file("/srv/s.graphql"))])
    func schemaSources(text: String, expected: Configuration.SchemaSource) throws {
        #expect(try parse("origin:\n  schema: \(text)\n").origin.schema == expected)
    }

    // MARK: Warnings

    /// The warnings of a valid `yaml`, in file order.
    private func warnings(_ yaml: String) throws -> [ConfigurationError.Problem] {
        var warnings: [ConfigurationError.Problem] = []
        _ = try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: "/") { warnings.append($0) }
        return warnings
    }

    @Test func aPerUserTypeWithoutASchemaIsAWarningAtItsScope() throws {
        let yaml = """
            origin:
              schema: off
            cache:
              types:
                Launch: { ttl: 5m }
                User:
                  scope: per-user
                Account: { scope: per-user }
            """
        let found = try warnings(yaml)
        #expect(found.count == 1)
        #expect(found.first?.line == 7)
        let message = found.first?.description ?? ""
        let expected = "config.yaml:7: warning: cache.types.User has scope per-user (and 1 more"
        #expect(message.hasPrefix(expected), "\(message)")
        #expect(message.contains("origin.schema is off"))
        #expect(message.contains("will not be stored (fail closed)"))
        // The file is still valid: the warning changes nothing it loads.
        #expect(try parse(yaml).origin.schema == .off)
    }

    @Test func aPerUserTypeWithEntityTagsNotAutoIsAWarning() throws {
        let found = try warnings("cache:\n  entity_tags: selected\n  types:\n    User: { scope: per-user }\n")
        #expect(found.count == 1)
        #expect(found.first?.description.contains("cache.entity_tags is not auto") == true, "\(found)")
    }

    @Test(arguments: [
        "origin:\n  schema: off\ncache:\n  types:\n    Launch: { ttl: 5m }\n",
        "origin:\n  schema: off\ncache:\n  rules:\n    - operation: Me\n      ttl: 1m\n      scope: per-user\n",
        "cache:\n  types:\n    User: { scope: per-user }\n",
        "origin:\n  schema: /srv/schema.graphql\ncache:\n  types:\n    User: { scope: per-user }\n",
    ])
    func noWarningWithASchemaOrWithoutPerUserTypes(yaml: String) throws {
        #expect(try warnings(yaml).isEmpty)
    }

    // MARK: Environment

    @Test func environmentReferencesAreExpanded() throws {
        let yaml = """
            server:
              listen: "${HOST:-0.0.0.0}:${PORT}"
            admin:
              token: ${ADMIN_TOKEN}
            redis:
              url: redis://:${REDIS_PASSWORD}@${REDIS_HOST:-cache}:6379
              signing_key: ${BW_SIGNING_KEY}
            logging:
              level: ${LOG_LEVEL:-info}
            """
        let configuration = try ConfigurationLoader.parse(
            yaml: yaml, file: "config.yaml", baseDirectory: "/",
            environment: [
                "PORT": "8081", "ADMIN_TOKEN": "t0k$n-0123456789abcdef", "REDIS_PASSWORD": "pa ss", "LOG_LEVEL": "",
                "BW_SIGNING_KEY": "c2VjcmV0LWZsZWV0LWtleQ==",
            ])
        #expect(configuration.server.listen == HostPort(host: "0.0.0.0", port: 8081))
        #expect(configuration.admin.token == "t0k$n-0123456789abcdef")
        #expect(configuration.redis.url == "redis://:pa ss@cache:6379")
        #expect(configuration.redis.signingKey == "c2VjcmV0LWZsZWV0LWtleQ==")
        #expect(configuration.logging.level == .info)  // empty takes the default, as `:-` does in a shell
    }

    @Test func unsetVariableWithoutDefaultIsReportedAtItsLineByName() {
        do {
            _ = try ConfigurationLoader.parse(
                yaml: "server:\n  threads: 2\nadmin:\n  token: ${ADMIN_TOKEN}\n", file: "config.yaml",
                baseDirectory: "/", environment: [:])
            Issue.record("an unset variable was accepted")
        } catch {
            #expect(
                error.problems == [
                    .init(
                        file: "config.yaml", line: 4,
                        message:
                            "admin.token: environment variable ADMIN_TOKEN is not set (write ${ADMIN_TOKEN:-default} to give a default)"
                    )
                ])
        }
    }

    @Test(arguments: [
        ("plain $HOME and $ stay", "plain $HOME and $ stay"), ("${A}${B:-b}", "ab"), ("x${A:-y}z", "xaz"),
        ("${UNSET:-}", ""), ("${UNSET:-a:-b}", "a:-b"),
    ])
    func expansionCases(text: String, expected: String) {
        let expansion = EnvironmentExpansion(environment: ["A": "a"])
        #expect(expansion.expand(text) == .success(expected))
    }

    @Test(arguments: ["${", "${A", "${}", "${1A}", "${A B}", "${:-x}"])
    func malformedReferencesAreRejected(text: String) {
        let expansion = EnvironmentExpansion(environment: ["A": "a"])
        guard case .failure(.malformed) = expansion.expand(text) else {
            Issue.record("\(text) was accepted")
            return
        }
    }

    // MARK: Bad files

    /// A file with one problem, the line it is reported at and the message.
    struct BadFile: Sendable, CustomTestStringConvertible {
        let yaml: String
        let line: Int
        let message: String
        var testDescription: String { message }
    }

    @Test(arguments: [
        // Misspelled and unknown keys.
        BadFile(
            yaml: "server:\n  listen: \"127.0.0.1:8080\"\n  max_uri_byte: 100\n",
            line: 3,
            message: #"unknown key "max_uri_byte" in server (did you mean "max_uri_bytes"?)"#
        ),
        BadFile(yaml: "sever:\n  threads: 2\n", line: 1, message: #"unknown key "sever" (did you mean "server"?)"#),
        BadFile(yaml: "cache:\n  colour: red\n", line: 2, message: #"unknown key "colour" in cache"#),
        BadFile(
            yaml: "server:\n  cors:\n    allow_origin: [\"*\"]\n",
            line: 3,
            message: #"unknown key "allow_origin" in server.cors (did you mean "allow_origins"?)"#
        ),
        BadFile(
            yaml: "cache:\n  rules:\n    - operation: Me\n      ttl: 1m\n      scop: per-user\n",
            line: 5,
            message: #"unknown key "scop" in cache.rules[0] (did you mean "scope"?)"#
        ),
        // Durations.
        BadFile(
            yaml: "server:\n  idle_timeout: 5 minutes\n",
            line: 2,
            message: #"server.idle_timeout: "5 minutes" is not a duration (use e.g. 500ms, 30s, 5m, 24h)"#
        ),
        BadFile(
            yaml: "origin:\n  timeout: 30\n",
            line: 2,
            message: #"origin.timeout: "30" is not a duration (use e.g. 500ms, 30s, 5m, 24h)"#
        ),
        BadFile(yaml: "cache:\n  stale_if_error: -5s\n", line: 2, message: "cache.stale_if_error must not be negative"),
        BadFile(yaml: "origin:\n  timeout: 0s\n", line: 2, message: "origin.timeout must be greater than 0s"),
        // Sizes and numbers.
        BadFile(
            yaml: "server:\n  max_body_bytes: 1.5MiB\n",
            line: 2,
            message: #"server.max_body_bytes: "1.5MiB" is not a size (use a byte count or e.g. 32KiB, 1MiB)"#
        ),
        BadFile(yaml: "cache:\n  max_bytes: -1\n", line: 2, message: "cache.max_bytes must not be negative"),
        BadFile(yaml: "server:\n  threads: -1\n", line: 2, message: "server.threads must not be negative"),
        BadFile(yaml: "server:\n  threads: many\n", line: 2, message: #"server.threads: "many" is not a whole number"#),
        BadFile(yaml: "origin:\n  max_connections: 0\n", line: 2, message: "origin.max_connections must be at least 1"),
        // Addresses and URLs.
        BadFile(
            yaml: "origin:\n  url: ftp://example.com/graphql\n",
            line: 2,
            message: #"origin.url: "ftp://example.com/graphql" is not an http:// or https:// URL"#
        ),
        BadFile(
            yaml: "server:\n  listen: localhost\n",
            line: 2,
            message:
                #"server.listen: "localhost" is not a listen address (HOST:PORT or [IPv6]:PORT)"#
        ),
        BadFile(
            yaml: "redis:\n  url: http://cache:6379\n",
            line: 2,
            message: "redis.url: must start with redis:// or unix://"
        ),
        BadFile(
            yaml: "server:\n  graphql_path: graphql\n",
            line: 2,
            message: #"server.graphql_path: "graphql" must start with "/""#
        ),
        // Enums.
        BadFile(
            yaml: "persisted_queries:\n  mode: automatc\n",
            line: 2,
            message: #"persisted_queries.mode: "automatc" is not one of automatic, safelist, off"#
        ),
        BadFile(yaml: "origin:\n  method: PUT\n", line: 2, message: #"origin.method: "PUT" is not one of POST, GET"#),
        // The keys added for operators, the fleet and the schema.
        BadFile(
            yaml: "server:\n  shutdown_dely: 5s\n", line: 2,
            message: #"unknown key "shutdown_dely" in server (did you mean "shutdown_delay"?)"#),
        BadFile(yaml: "server:\n  max_batch: 0\n", line: 2, message: "server.max_batch must be at least 1"),
        BadFile(yaml: "server:\n  header_timeout: 0s\n", line: 2, message: "server.header_timeout must be greater than 0s"),
        BadFile(
            yaml: "server:\n  compression: gzip\n", line: 2, message: #"server.compression: "gzip" is not true or false"#),
        BadFile(
            yaml: "persisted_queries:\n  max_document_bytes: 0\n", line: 2,
            message: "persisted_queries.max_document_bytes must be at least 1"),
        BadFile(
            yaml: "cache:\n  entity_tags: all\n", line: 2,
            message: #"cache.entity_tags: "all" is not one of auto, selected, off"#),
        BadFile(
            yaml: "cache:\n  tag_header: X-Tags\n", line: 2,
            message: #"cache.tag_header: "X-Tags" is not one of "", Surrogate-Key, Cache-Tag, xkey"#),
        BadFile(
            yaml: "cache:\n  types:\n    User:\n      scpe: per-user\n", line: 4,
            message: #"unknown key "scpe" in cache.types.User (did you mean "scope"?)"#),
        BadFile(
            yaml: "cache:\n  types:\n    Launch: { keys: [] }\n", line: 3,
            message: "cache.types.Launch.keys must name at least one field"),
        BadFile(
            yaml: "cache:\n  types:\n    Launch-Site: { ttl: 1m }\n", line: 3,
            message: #"cache.types: "Launch-Site" is not a GraphQL type name"#),
        BadFile(yaml: "cache:\n  types: [User]\n", line: 2,
            message: "cache.types: expected a mapping of type names (User: { scope: per-user }), found a list"),
        BadFile(
            yaml: "logging:\n  format: yaml\n", line: 2, message: #"logging.format: "yaml" is not one of text, json"#),
        BadFile(yaml: "redis:\n  timeout: 0s\n", line: 2, message: "redis.timeout must be greater than 0s"),
        BadFile(
            yaml: "redis:\n  url: redis://cache:6379\n  signing_key: sh0rt-secret\n", line: 3,
            message: "redis.signing_key must be at least 16 bytes (it is 12); make one with `openssl rand -hex 32`"),
        BadFile(
            yaml: "redis:\n  signing-key: 0123456789abcdef\n", line: 2,
            message: #"unknown key "signing-key" in redis (did you mean "signing_key"?)"#),
        BadFile(yaml: "admin:\n  allowed_hosts: example.com\n", line: 2,
            message: "admin.allowed_hosts: expected a list such as [a, b], found a single value"),
        BadFile(
            yaml: "logging:\n  level: verbose\n",
            line: 2,
            message: #"logging.level: "verbose" is not one of trace, debug, info, notice, warning, error, critical"#
        ),
        BadFile(
            yaml: "cache:\n  rules:\n    - operation: Me\n      ttl: 1m\n      scope: private\n",
            line: 5,
            message: #"cache.rules[0].scope: "private" is not one of public, per-user"#
        ),
        BadFile(
            yaml: "origin:\n  tls_verify: maybe\n",
            line: 2,
            message: #"origin.tls_verify: "maybe" is not true or false"#
        ),
        // Wrong shapes.
        BadFile(
            yaml: "server:\n  listen: [a, b]\n",
            line: 2,
            message: "server.listen: expected HOST:PORT, found a list"
        ),
        BadFile(
            yaml: "server:\n  threads:\n",
            line: 2,
            message: "server.threads: expected a whole number, found nothing"
        ),
        BadFile(
            yaml: "origin:\n  forward_headers: Authorization\n",
            line: 2,
            message: "origin.forward_headers: expected a list such as [a, b], found a single value"
        ),
        BadFile(
            yaml: "cache:\n  private_headers: [\"X-User Id\"]\n",
            line: 2,
            message: #"cache.private_headers: "X-User Id" is not a header name"#
        ),
        BadFile(
            yaml: "server: 8080\n",
            line: 1,
            message: "server: expected a mapping of settings, found a single value"
        ),
        BadFile(
            yaml: "- server\n- origin\n",
            line: 1,
            message: "the top level must be a mapping of sections (server:, origin:, ...), found a list"
        ),
        BadFile(
            yaml: "cache:\n  rules: GetLaunches\n",
            line: 2,
            message: "cache.rules: expected a list of rules (- operation: ..., ttl: ...), found a single value"
        ),
        // Rules and cross-field checks.
        BadFile(yaml: "cache:\n  rules:\n    - operation: Me\n", line: 3, message: "cache.rules[0] needs ttl"),
        BadFile(yaml: "cache:\n  rules:\n    - ttl: 30s\n", line: 3, message: "cache.rules[0] needs operation"),
        BadFile(
            yaml: "cache:\n  rules:\n    - operation: \"\"\n      ttl: 1m\n",
            line: 3,
            message: "cache.rules[0].operation must not be empty"
        ),
        BadFile(
            yaml: "server:\n  max_uri_bytes: 65536\n  max_header_bytes: 64KiB\n",
            line: 3,
            message: "server.max_header_bytes (64KiB) must be greater than server.max_uri_bytes (65536)"
        ),
        BadFile(
            yaml: "server:\n  max_uri_bytes: 100000\n",
            line: 2,
            message: "server.max_header_bytes (64KiB) must be greater than server.max_uri_bytes (100000)"
        ),
        BadFile(yaml: "server:\n  tls:\n    cert: cert.pem\n", line: 2, message: "server.tls needs both cert and key"),
        BadFile(
            yaml: "server:\n  cors:\n    max_age: 1m\n",
            line: 2,
            message: #"server.cors.allow_origins must name at least one origin (or "*")"#
        ),
        BadFile(
            yaml: "persisted_queries:\n  mode: safelist\n",
            line: 2,
            message: "persisted_queries.mode safelist needs a manifest to list the allowed queries"
        ),
        BadFile(
            yaml: "server:\n  listen: \"127.0.0.1:9000\"\nadmin:\n  listen: \"127.0.0.1:9000\"\n",
            line: 3,
            message: "admin.listen must differ from server.listen (127.0.0.1:9000)"
        ),
        // YAML itself.
        BadFile(yaml: "server:\n  threads: 1\n  threads: 2\n", line: 2, message: #"duplicate key "threads""#),
    ])
    func badFileIsReportedAtItsLine(_ bad: BadFile) {
        let found = problems(bad.yaml)
        #expect(found == [.init(file: "config.yaml", line: bad.line, message: bad.message)])
    }

    @Test func yamlSyntaxErrorNamesItsLine() {
        let found = problems("server:\n  listen: \"127.0.0.1:8080\"\n   threads: 2\norigin: {\n")
        #expect(found.count == 1)
        #expect(found.first?.line == 3)
        #expect(found.first?.message.hasPrefix("invalid YAML: ") == true)
    }

    @Test func everyProblemIsReportedTogetherInFileOrder() {
        let yaml = """
            server:
              listen: nowhere
              max_uri_bytes: 70000
              max_header_bytes: 64KiB
            origin:
              url: gopher://old.example.com
              timout: 5s
            cache:
              rules:
                - operation: Me
            logging:
              level: loud
            """
        let found = problems(yaml)
        #expect(found.map(\.line) == [2, 4, 6, 7, 10, 12])
        let error = ConfigurationError(problems: found)
        #expect(error.description.split(separator: "\n").count == 6)
        #expect(error.description.hasPrefix(#"config.yaml:2: server.listen: "nowhere" is not a listen address"#))
        #expect(error.description.contains(#"config.yaml:7: unknown key "timout" in origin (did you mean "timeout"?)"#))
    }

    // MARK: Files and paths

    @Test func relativePathsAreResolvedAgainstTheBaseDirectory() throws {
        let configuration = try parse(
            """
            server:
              tls:
                cert: certs/cert.pem
                key: /secrets/key.pem
            persisted_queries:
              manifest: ./manifests/../manifests/pq.json
            """,
            base: "/srv/bw"
        )
        #expect(configuration.server.tls?.cert == "/srv/bw/certs/cert.pem")
        #expect(configuration.server.tls?.key == "/secrets/key.pem")
        #expect(configuration.persistedQueries.manifest == "/srv/bw/manifests/../manifests/pq.json")
        // The default store is relative too, so it follows the config file.
        #expect(configuration.persistedQueries.store == "/srv/bw/data/persisted-queries.log")
    }

    @Test func emptyStoreStaysInMemory() throws {
        let configuration = try parse("persisted_queries:\n  store: \"\"\n")
        #expect(configuration.persistedQueries.store == "")
    }

    @Test func loadReadsTheFileAndResolvesAgainstItsFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("config.yaml").path
        try "persisted_queries:\n  store: pq.log\n".write(toFile: path, atomically: true, encoding: .utf8)

        let configuration = try ConfigurationLoader.load(path: path)
        #expect(configuration.persistedQueries.store == folder.path + "/pq.log")
    }

    @Test func loadReportsAMissingFile() {
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.load(path: "/nonexistent/config.yaml") }
        do {
            _ = try ConfigurationLoader.load(path: "/nonexistent/config.yaml")
        } catch {
            #expect(error.description == "/nonexistent/config.yaml: cannot read file")
        }
    }

    // MARK: Rendering

    @Test func effectiveYAMLOfTheSpecExampleReadsBackEqual() throws {
        let configuration = try parse(specExample)
        let yaml = configuration.effectiveYAML
        #expect(try parse(yaml) == configuration)
        #expect(yaml.contains("\n  max_body_bytes: 1MiB\n"))
        #expect(yaml.contains("\n  idle_timeout: 1m\n"))
        #expect(yaml.contains("\n    - operation: \"Me\"\n      ttl: 1m\n      scope: per-user\n"))
    }

    @Test func effectiveYAMLOfDefaultsReadsBackEqual() throws {
        let defaults = Configuration()
        #expect(try parse(defaults.effectiveYAML, base: ".") == defaults)
        #expect(!defaults.effectiveYAML.contains("cors:"))
        #expect(defaults.effectiveYAML.contains("\n  rules: []\n"))
    }

    @Test func effectiveYAMLQuotesAwkwardStrings() throws {
        var configuration = Configuration()
        configuration.server.listen = HostPort(host: "::1", port: 0)
        configuration.server.cors = Configuration.CORS()
        configuration.server.cors?.allowOrigins = ["*"]
        configuration.server.tls = Configuration.TLS()
        configuration.server.tls?.cert = "/etc/a \"quoted\" # not a comment.pem"
        configuration.server.tls?.key = "/etc/tab\there\\key.pem"
        configuration.admin.token = "no # not a comment: 0123456789"
        configuration.redis.keyPrefix = "on"
        configuration.persistedQueries.store = "/var/lib/breakwater/é.log"
        configuration.persistedQueries.manifest = "/srv/line\u{2028}separator.json"
        configuration.cache.rules = [.init(operation: "~", ttl: .microseconds(250), scope: .perUser)]
        configuration.cache.defaultTTL = .milliseconds(1500)
        #expect(try parse(configuration.effectiveYAML) == configuration)
    }

    // MARK: Values

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("24h", .seconds(86_400)),
        ("0", .zero), ("0s", .zero), ("0ms", .zero), ("1.5s", .milliseconds(1500)), ("0.25ms", .microseconds(250)),
        (" 10s ", .seconds(10)),
    ])
    func durationParses(text: String, expected: Duration) {
        #expect(Duration(parsing: text) == expected)
    }

    @Test(arguments: ["", "30", "-5s", "5 m", "5x", "1.s", ".5s", "s", "1.2.3s", "+5s", "5S", "99999999999999h"])
    func durationRejects(text: String) {
        #expect(Duration(parsing: text) == nil)
    }

    @Test(arguments: [
        (Duration.zero, "0s"), (.seconds(30), "30s"), (.seconds(300), "5m"), (.milliseconds(500), "500ms"),
        (.seconds(86_400), "24h"), (.seconds(90), "90s"), (.milliseconds(1500), "1500ms"),
        (.microseconds(250), "0.25ms"),
    ])
    func durationConfigTextIsShortestAndReadsBack(duration: Duration, text: String) {
        #expect(duration.configText == text)
        #expect(Duration(parsing: text) == duration)
    }

    @Test(arguments: [
        ("32768", 32_768), ("32KiB", 32_768), ("1MiB", 1 << 20), ("256MiB", 256 << 20), ("1GiB", 1 << 30),
        ("512KB", 512_000), ("0", 0), ("10B", 10),
    ])
    func sizeParses(text: String, bytes: Int) {
        #expect(ByteSize(parsing: text)?.bytes == bytes)
        #expect(ByteSize(parsing: ByteSize(bytes).description)?.bytes == bytes)
    }

    @Test(arguments: ["", "-1", "1.5MiB", "10XB", "KiB", "99999999999GiB"])
    func sizeRejects(text: String) {
        #expect(ByteSize(parsing: text) == nil)
    }

    @Test(arguments: [
        ("127.0.0.1:8080", "127.0.0.1", 8080), ("localhost:0", "localhost", 0), ("[::1]:9090", "::1", 9090),
        ("[::]:443", "::", 443), ("0.0.0.0:65535", "0.0.0.0", 65_535),
    ])
    func hostPortParses(text: String, host: String, port: Int) {
        let address = HostPort(parsing: text)
        #expect(address == HostPort(host: host, port: port))
        #expect(address?.description == text)
    }

    @Test(arguments: [
        "localhost", "::1:8080", "[::1]", "[::1]8080", ":8080", "host:65536", "host:+80", "host:", "a b:80",
    ])
    func hostPortRejects(text: String) {
        #expect(HostPort(parsing: text) == nil)
    }

    @Test(arguments: [
        ("http://127.0.0.1:4000/graphql", OriginURL(scheme: .http, host: "127.0.0.1", port: 4000, path: "/graphql")),
        ("https://api.example.com", OriginURL(scheme: .https, host: "api.example.com", port: 443, path: "/")),
        (
            "http://example.com/graphql?x=1#top",
            OriginURL(scheme: .http, host: "example.com", port: 80, path: "/graphql?x=1")
        ),
        ("http://[::1]:4000/graphql", OriginURL(scheme: .http, host: "::1", port: 4000, path: "/graphql")),
        ("https://[2001:db8::1]/gql", OriginURL(scheme: .https, host: "2001:db8::1", port: 443, path: "/gql")),
        ("HTTPS://example.com:8443?q", OriginURL(scheme: .https, host: "example.com", port: 8443, path: "/?q")),
    ])
    func originURLParses(text: String, expected: OriginURL) {
        #expect(OriginURL(parsing: text) == expected)
    }

    @Test(arguments: [
        "ftp://example.com", "example.com/graphql", "http://", "http://user@host/", "http://host:0/",
        "http://[::1:80/", "http://[]/", "http://a b/", "http://host:abc/", "http://::1/",
    ])
    func originURLRejects(text: String) {
        #expect(OriginURL(parsing: text) == nil)
    }

    @Test func originURLHostHeaderOmitsTheDefaultPort() {
        #expect(OriginURL(parsing: "https://example.com:443/graphql")?.hostHeader == "example.com")
        #expect(OriginURL(parsing: "http://example.com:8080/graphql")?.hostHeader == "example.com:8080")
        #expect(OriginURL(parsing: "http://[::1]/graphql")?.hostHeader == "[::1]")
        #expect(OriginURL(parsing: "http://[::1]:4000/graphql")?.description == "http://[::1]:4000/graphql")
    }
}

@Suite struct ConfigurationReloadTests {
    @Test func restartOnlyKeysAreNamedAndKeptAtTheirRunningValues() throws {
        let running = Configuration()
        var next = running
        next.server.threads = 4
        next.persistedQueries.maxEntries = 10
        next.redis.url = "redis://cache:6379"
        next.cache.defaultTTL = .seconds(5)
        next.logging.level = .debug
        next.admin.token = "t"
        next.redis.signingKey = "0123456789abcdef"
        next.redis.timeout = .milliseconds(80)
        next.redis.l2MaxEntryBytes = ByteSize(4096)
        #expect(
            running.restartOnlyChanges(to: next) == [
                "server.threads", "persisted_queries.max_entries", "redis.url", "redis.timeout",
                "redis.l2_max_entry_bytes", "redis.signing_key",
            ])
        let applied = running.reloadable(from: next)
        #expect(applied.server.threads == 0)
        #expect(applied.persistedQueries.maxEntries == 100_000)
        #expect(applied.redis.url == "")
        #expect(applied.redis.signingKey == "")
        #expect(applied.redis.timeout == .milliseconds(50))
        #expect(applied.cache.defaultTTL == .seconds(5))
        #expect(applied.logging.level == .debug)
        #expect(applied.admin.token == "t")
        #expect(running.restartOnlyChanges(to: applied).isEmpty)
    }
}

@Suite struct AdminHostPolicyTests {
    @Test(arguments: [
        "localhost", "localhost:9090", "LOCALHOST:9090", "app.localhost", "127.0.0.1", "127.0.0.1:9090", "127.9.8.7:1",
        "[::1]:9090", "[::1]", "bw.internal", "bw.internal:9090", "10.0.0.7:9090",
    ])
    func allows(host: String) {
        #expect(AdminHostPolicy(allowedHosts: ["bw.internal", "10.0.0.7:9090"]).allows(host))
    }

    @Test(arguments: [
        "", "evil.example", "evil.example:9090", "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.7",
        "10.0.0.7:80", "128.0.0.1", "127.0.0.256", "[::2]:9090",
    ])
    func refuses(host: String) {
        #expect(!AdminHostPolicy(allowedHosts: ["bw.internal", "10.0.0.7:9090"]).allows(host))
    }

    @Test func probesAnswerAnyHostAndOtherPathsDoNot() {
        let policy = AdminHostPolicy(allowedHosts: [])
        for host in [nil, "", "evil.example", "10.9.9.9:9090"] {
            #expect(policy.allows(host, path: "/healthz") && policy.allows(host, path: "/readyz"))
            #expect(!policy.allows(host, path: "/stats") && !policy.allows(host, path: "/healthz/x"))
        }
        #expect(policy.allows("localhost", path: "/stats"))
    }

    @Test func missingHostIsRefusedAndStarAllowsAll() {
        #expect(!AdminHostPolicy(allowedHosts: []).allows(nil))
        #expect(AdminHostPolicy(allowedHosts: ["*"]).allows("anything.example"))
    }
}

@Suite struct ConfigurationSecretsTests {
    @Test(arguments: [
        ("redis://:pw@cache:6379/0", "redis://:***@cache:6379/0"), ("rediss://user:p@ss@h:1", "rediss://user:***@h:1"),
        ("redis://cache:6379", "redis://cache:6379"), ("", ""), ("unix:///run/redis.sock", "unix:///run/redis.sock"),
        ("redis://legacypw@cache", "redis://***@cache"),
    ])
    func redisPasswordIsMasked(url: String, masked: String) {
        #expect(Configuration.maskingPassword(in: url) == masked)
    }

    @Test func tokenIsMaskedOnlyWhenSet() {
        var configuration = Configuration()
        #expect(configuration.maskingSecrets().admin.token == "")
        configuration.admin.token = "s3cret"
        #expect(configuration.maskingSecrets().admin.token == "***")
        #expect(!configuration.maskingSecrets().effectiveYAML.contains("s3cret"))
    }

    @Test func signingKeyIsMaskedOnlyWhenSet() {
        var configuration = Configuration()
        #expect(configuration.maskingSecrets().redis.signingKey == "")
        configuration.redis.signingKey = "fleet-signing-key-0123"
        #expect(configuration.maskingSecrets().redis.signingKey == "***")
        #expect(configuration.maskingSecrets().effectiveYAML.contains(#"signing_key: "***""#))
        #expect(!configuration.maskingSecrets().effectiveYAML.contains("fleet-signing-key-0123"))
    }
}

// MARK: - The admin token

@Suite struct AdminTokenTests {
    /// The token given through the environment, as containers do: `${...}` comes back literal
    /// when the environment's own value was a template nobody rendered.
    private func problems(token: String) -> [ConfigurationError.Problem] {
        do {
            _ = try ConfigurationLoader.parse(
                yaml: "server:\n  threads: 2\nadmin:\n  token: ${BW_TOKEN}\n", file: "config.yaml",
                baseDirectory: "/", environment: ["BW_TOKEN": token])
            return []
        } catch {
            return error.problems
        }
    }

    @Test(arguments: [
        ("change-me", "admin.token is a placeholder (it contains \"change-me\")"),
        ("changeme", "admin.token is a placeholder (it contains \"changeme\")"),
        ("CHANGEME-0123456789abcdef", "admin.token is a placeholder (it contains \"changeme\")"),
        ("REPLACE-ME-with-the-output-of-openssl-rand-hex-32", "admin.token is a placeholder (it contains \"replace-me\")"),
        ("${ADMIN_TOKEN}", "admin.token holds an environment reference left unexpanded"),
        ("$(ADMIN_TOKEN)-0123456789abcdef", "admin.token holds an environment reference left unexpanded"),
        ("tooshort", "admin.token must be at least 16 bytes (it is 8)"),
        ("0123456789abcde", "admin.token must be at least 16 bytes (it is 15)"),
    ])
    func placeholderOrShortTokenIsRefusedAtItsLine(token: String, message: String) {
        let found = problems(token: token)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.line == 4)
        #expect(found.first?.message.hasPrefix(message) == true, "\(found)")
        if token.count > 9 { #expect(found.first?.message.contains(token) == false, "the token is never printed") }
    }

    @Test(arguments: ["", "0123456789abcdef", "9f2c4e7a1b8d3f6e0a5c9b2d7e4f1a8c3b6d9e2f5a8c1b4d7e0f3a6c9b2d5e8f"])
    func emptyOrLongRandomTokenIsAccepted(token: String) {
        #expect(problems(token: token).isEmpty)
    }

    @Test func shippedDeployConfigIsRefusedAtTheTokenLineUntilItIsReplaced() throws {
        let path = repositoryRoot + "/deploy/config.yaml"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let tokenLine = try #require(text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.hasPrefix("  token: ") }) + 1
        do {
            _ = try ConfigurationLoader.parse(yaml: text, file: "config.yaml", baseDirectory: "/etc/breakwater")
            Issue.record("the placeholder token was accepted")
        } catch {
            #expect(error.problems.map(\.line) == [tokenLine], "\(error)")
        }
        let replaced = text.replacingOccurrences(
            of: "REPLACE-ME-with-the-output-of-openssl-rand-hex-32", with: "9f2c4e7a1b8d3f6e0a5c9b2d7e4f1a8c")
        _ = try ConfigurationLoader.parse(yaml: replaced, file: "config.yaml", baseDirectory: "/etc/breakwater")
    }
}

/// The repository's root folder (deploy/, docs/ and README.md are read by some tests).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

// MARK: - The files the configuration writes

/// A folder under the temporary directory, removed when the test ends.
private func withFolder(_ body: (String) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bw-files-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    try body(folder)
}

/// The problems of the files `yaml` (a config file in `folder`) writes.
private func fileProblems(_ yaml: String, in folder: String) throws -> [ConfigurationError.Problem] {
    let loaded = try ConfigurationLoader.read(yaml: yaml, file: "config.yaml", baseDirectory: folder)
    return loaded.configuration.writtenFileProblems(in: loaded.source)
}

@Suite struct ConfigurationFilesTests {
    @Test func accessLogInAMissingFolderIsAProblemAtItsLine() throws {
        try withFolder { (folder: String) throws in
            let yaml = "persisted_queries:\n  store: \"\"\nlogging:\n  format: json\n  access_log: /nonexistent-dir/access.log\n"
            let problems = try fileProblems(yaml, in: folder)
            #expect(
                problems == [
                    .init(
                        file: "config.yaml", line: 5,
                        message: "logging.access_log: folder /nonexistent-dir does not exist (Breakwater creates no "
                            + "folders: create it with `mkdir -p /nonexistent-dir`, or correct the path)")
                ])
            #expect(problems.first?.description.hasPrefix("config.yaml:5: logging.access_log: ") == true)
        }
    }

    @Test func storeInAMissingFolderIsAProblemAtItsLineThatSaysHowToCreateIt() throws {
        try withFolder { (folder: String) throws in
            let yaml = "admin:\n  listen: \"127.0.0.1:9090\"\npersisted_queries:\n  store: data/persisted-queries.log\n"
            let problems = try fileProblems(yaml, in: folder)
            #expect(
                problems.map(\.description) == [
                    "config.yaml:4: persisted_queries.store: folder \(folder)/data does not exist (Breakwater creates "
                        + "no folders: create it with `mkdir -p \(folder)/data`, or correct the path)"
                ])
        }
    }

    @Test func theSuggestedMkdirQuotesAFolderWithSpaces() throws {
        try withFolder { (folder: String) throws in
            let yaml = "persisted_queries:\n  store: \"my data/it's.log\"\n"
            let problems = try fileProblems(yaml, in: folder)
            #expect(problems.count == 1)
            #expect(problems.first?.message.contains("`mkdir -p '\(folder)/my data'`") == true, "\(problems)")
        }
    }

    @Test func accessLogIsOpenedAndANewFileIsNotLeftBehind() throws {
        try withFolder { (folder: String) throws in
            let yaml = "persisted_queries:\n  store: \"\"\nlogging:\n  access_log: logs/access.log\n"
            try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: false)
            #expect(try fileProblems(yaml, in: folder).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: folder + "/logs/access.log"))
            // An existing log is opened for appending and keeps what it holds.
            try "earlier line\n".write(toFile: folder + "/logs/access.log", atomically: false, encoding: .utf8)
            #expect(try fileProblems(yaml, in: folder).isEmpty)
            #expect(try String(contentsOfFile: folder + "/logs/access.log", encoding: .utf8) == "earlier line\n")
        }
    }

    @Test func accessLogThatIsAPipeWithoutAReaderIsCheckedWithoutWaiting() throws {
        try withFolder { (folder: String) throws in
            #expect(mkfifo(folder + "/access.pipe", 0o600) == 0)
            // Opening a FIFO for writing would wait for a reader forever.
            let yaml = "persisted_queries:\n  store: \"\"\nlogging:\n  access_log: access.pipe\n"
            #expect(try fileProblems(yaml, in: folder).isEmpty)
        }
    }

    @Test func accessLogThatIsAFolderOrUnderAFileIsAProblem() throws {
        try withFolder { (folder: String) throws in
            try FileManager.default.createDirectory(atPath: folder + "/logs", withIntermediateDirectories: false)
            try "x".write(toFile: folder + "/file", atomically: false, encoding: .utf8)
            let asFolder = try fileProblems("persisted_queries:\n  store: \"\"\nlogging:\n  access_log: logs\n", in: folder)
            #expect(asFolder.map(\.message) == ["logging.access_log: \(folder)/logs is a folder, not a file"])
            let underFile = try fileProblems("persisted_queries:\n  store: \"\"\nlogging:\n  access_log: file/a.log\n", in: folder)
            #expect(underFile.map(\.message) == ["logging.access_log: \(folder)/file is not a folder"])
        }
    }

    @Test func storeInAMissingFolderIsAProblemAtItsLineAndNoFolderIsMade() throws {
        try withFolder { (folder: String) throws in
            let problems = try fileProblems("origin:\n  schema: off\npersisted_queries:\n  store: stat/pq.log\n", in: folder)
            #expect(problems.count == 1)
            #expect(problems.first?.line == 4)
            #expect(problems.first?.message.hasPrefix("persisted_queries.store: folder \(folder)/stat does not exist") == true)
            #expect(!FileManager.default.fileExists(atPath: folder + "/stat"))
        }
    }

    @Test func defaultStoreInAMissingFolderNamesTheDefaultAtItsSection() throws {
        try withFolder { (folder: String) throws in
            let noSection = try fileProblems("origin:\n  schema: off\n", in: folder)
            #expect(noSection.first?.line == 0)
            #expect(noSection.first?.description.hasPrefix("config.yaml: persisted_queries.store: folder \(folder)/data") == true)
            #expect(noSection.first?.message.contains("the default, as the file does not set persisted_queries.store") == true)
            let section = try fileProblems("origin:\n  schema: off\npersisted_queries:\n  max_entries: 10\n", in: folder)
            #expect(section.first?.line == 3)
            try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: false)
            #expect(try fileProblems("origin:\n  schema: off\n", in: folder).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/data").isEmpty)
        }
    }

    @Test(arguments: ["  store: \"\"\n", "  mode: off\n  store: nowhere/pq.log\n"])
    func storeIsNotOpenedWhenTheRegistryKeepsNone(settings: String) throws {
        try withFolder { (folder: String) throws in
            #expect(try fileProblems("persisted_queries:\n" + settings, in: folder).isEmpty)
        }
    }

    @Test func problemsCarryTheFileLogFormatWhenItCouldBeRead() {
        for (yaml, format) in [
            ("logging:\n  format: json\nserver:\n  threadz: 2\n", Configuration.LogFormat.json),
            ("logging:\n  format: yaml\n", .text), ("server: [\n", .text),
        ] {
            do {
                _ = try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: "/")
                Issue.record("\(yaml) was accepted")
            } catch {
                #expect(error.logFormat == format, "\(yaml)")
            }
        }
    }
}

/// `admin.listen` alone, for commands that only read the admin endpoints (`advise`).
@Suite struct AdminListenReadingTests {
    static func write(_ yaml: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("admin-listen-\(UUID().uuidString).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func anUnsetSecretElsewhereInTheFileIsNoProblem() throws {
        let path = try Self.write(
            "admin:\n  listen: \"127.0.0.1:9191\"\n  token: \"${BREAKWATER_ADMIN_TOKEN}\"\nredis:\n  url: ${REDIS_URL}\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try ConfigurationLoader.adminListen(path: path, environment: [:]) == HostPort(host: "127.0.0.1", port: 9191))
        // The full load refuses the same file: the token is a secret it needs.
        #expect(throws: ConfigurationError.self) { try ConfigurationLoader.read(path: path, environment: [:]) }
    }

    @Test func theDefaultWhenAbsentAndTheLineWhenWrong() throws {
        let empty = try Self.write("server:\n  threads: 1\n")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect(try ConfigurationLoader.adminListen(path: empty, environment: [:]) == Configuration().admin.listen)
        let wrong = try Self.write("server:\n  threads: 1\nadmin:\n  listen: ${ADMIN}\n")
        defer { try? FileManager.default.removeItem(atPath: wrong) }
        do {
            _ = try ConfigurationLoader.adminListen(path: wrong, environment: [:])
            Issue.record("an unset variable in admin.listen must be reported")
        } catch {
            #expect(error.problems.first?.line == 4)
            #expect(error.problems.first?.message.contains("ADMIN") == true, "\(error.problems)")
        }
    }
}
