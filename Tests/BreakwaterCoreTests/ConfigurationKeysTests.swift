// The config keys of ConfigurationKeys are the keys the loader accepts, `breakwater validate`
// renders and the restart-only list names: one set, checked here by loading the rendering back.

import Testing

@testable import BreakwaterCore

/// Every optional section set, one type policy with every key, one rule with every key and one
/// CDN target of each kind, so that the rendering of what it loads holds every key there is.
private let everySection = """
    server:
      cors:
        allow_origins: ["https://app.example.com"]
      tls:
        cert: cert.pem
        key: key.pem
    cache:
      tag_header: xkey
      types:
        User: { ttl: 5m, scope: per-user, keys: [id] }
      rules:
        - operation: GetLaunches
          ttl: 30s
          scope: public
    cdn:
      targets:
        - kind: varnish
          urls: ["http://127.0.0.1:6081/"]
        - kind: fastly
          service_id: svc
          token: fastly-token
        - kind: cloudflare
          zone_id: zone
          token: cloudflare-token
        - kind: http
          url: "https://hooks.example.com/purge"
          token: hook-token
    """

/// A key's line in a file, by the pattern its `ConfigurationKey.path` follows: list indices as `[]`,
/// the type name of `cache.types` as `*`.
private func keyPattern(_ path: String) -> String {
    path.replacing(/\[\d+\]/, with: "[]").replacing("cache.types.User.", with: "cache.types.*.")
}

@Suite struct ConfigurationKeysTests {
    private static func renderedFile() throws -> (yaml: String, keys: Set<String>) {
        let configuration = try ConfigurationLoader.parse(
            yaml: everySection, file: "every.yaml", baseDirectory: "/etc/breakwater", environment: [:])
        let yaml = configuration.effectiveYAML
        // Reading it back reports any key the rendering writes and the loader does not ask for.
        let loaded = try ConfigurationLoader.read(
            yaml: yaml, file: "effective.yaml", baseDirectory: "/", environment: [:])
        return (yaml, Set(loaded.source.keyLines.keys.map(keyPattern)))
    }

    @Test func everyKeyTheLoaderAcceptsIsRenderedAndBack() throws {
        let (yaml, rendered) = try Self.renderedFile()
        let accepted = try ConfigurationLoader.keysAsked(yaml: yaml)
        #expect(accepted.subtracting(rendered).isEmpty, "accepted but not rendered: \(accepted.subtracting(rendered))")
        #expect(rendered.subtracting(accepted).isEmpty, "rendered but not accepted: \(rendered.subtracting(accepted))")
        // The reading found the keys at all, nested and in list items alike.
        let nested = ["server.max_batch", "server.tls.cert", "cache.types.*.keys", "cache.rules[].scope", "cdn.targets[].zone_id"]
        #expect(accepted.isSuperset(of: nested))
    }

    @Test func everyDeclaredKeyIsOneTheLoaderAccepts() throws {
        typealias Key = ConfigurationKeys
        let declared: [String] =
            Key.Section.allCases.map(\.path) + Key.Server.allCases.map(\.path) + Key.CORS.allCases.map(\.path)
            + Key.TLS.allCases.map(\.path) + Key.Origin.allCases.map(\.path)
            + Key.PersistedQueries.allCases.map(\.path) + Key.Cache.allCases.map(\.path)
            + Key.Freshness.allCases.map(\.path) + Key.TypePolicy.allCases.map(\.path)
            + Key.CacheRule.allCases.map(\.path) + Key.Admin.allCases.map(\.path) + Key.Redis.allCases.map(\.path)
            + Key.CDN.allCases.map(\.path) + Key.CDNTarget.allCases.map(\.path) + Key.Tracing.allCases.map(\.path)
            + Key.Logging.allCases.map(\.path)
        let accepted = try ConfigurationLoader.keysAsked(yaml: try Self.renderedFile().yaml)
        #expect(Set(declared).subtracting(accepted).isEmpty, "not accepted: \(Set(declared).subtracting(accepted))")
        #expect(accepted.subtracting(declared).isEmpty, "not declared: \(accepted.subtracting(declared))")
        #expect(declared.count == accepted.count, "a key is declared twice")
    }

    @Test func everyRestartOnlyNameIsAKeyTheLoaderAccepts() throws {
        let accepted = try ConfigurationLoader.keysAsked(yaml: try Self.renderedFile().yaml)
        let names = Configuration.restartOnlyKeyNames
        #expect(names.contains("server.tls") && names.contains("cdn") && names.contains("redis.signing_key"))
        #expect(Set(names).subtracting(accepted).isEmpty, "not keys: \(Set(names).subtracting(accepted))")
    }
}
