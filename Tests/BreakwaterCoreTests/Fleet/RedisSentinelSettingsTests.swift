// `redis.sentinels`, `redis.master_name` and `redis.sentinel_password` (docs/OPERATING.md): read,
// checked together, and turned into the sentinels the fleet tier asks, with `redis.url` keeping
// only the master's credentials.

import BreakwaterCore
import Testing

struct RedisSentinelSettingsTests {
    private func parse(_ yaml: String) throws(ConfigurationError) -> Configuration {
        try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: "/etc/breakwater")
    }

    private func problems(_ yaml: String) -> [String] {
        do {
            _ = try parse(yaml)
            return []
        } catch {
            return error.problems.map(\.message)
        }
    }

    @Test func sentinelsAndAMasterNameMakeASharedTierWithoutAURL() throws {
        let configuration = try parse(
            """
            redis:
              sentinels: ["10.0.0.1:26379", "10.0.0.2:26380", "sentinel-3"]
              master_name: bw-cache
            """)
        #expect(configuration.redis.sentinels == ["10.0.0.1:26379", "10.0.0.2:26380", "sentinel-3"])
        #expect(configuration.redis.masterName == "bw-cache")
        let settings = try #require(try RedisSettings(configuration))
        #expect(settings.usesSentinel)
        #expect(settings.masterName == "bw-cache")
        #expect(
            settings.sentinels.map(\.address) == [
                .tcp(host: "10.0.0.1", port: 26379), .tcp(host: "10.0.0.2", port: 26380),
                .tcp(host: "sentinel-3", port: 26379),
            ])
    }

    @Test func withSentinelsTheURLBringsOnlyTheCredentials() throws {
        let configuration = try parse(
            """
            redis:
              url: "redis://:pw@ignored-host:6379/2"
              sentinels: ["10.0.0.1:26379"]
              master_name: bw
            """)
        let settings = try #require(try RedisSettings(configuration))
        #expect(settings.endpoint.password == "pw")
        #expect(settings.endpoint.database == 2)
        #expect(settings.endpoint.address == .tcp(host: "", port: 6379))
    }

    @Test func withoutSentinelsTheURLIsTheRedis() throws {
        let settings = try #require(try RedisSettings(try parse("redis:\n  url: redis://cache:6379\n")))
        #expect(!settings.usesSentinel)
        #expect(settings.endpoint.address == .tcp(host: "cache", port: 6379))
        #expect(try RedisSettings(try parse("redis:\n  key_prefix: x\n")) == nil)
    }

    @Test(arguments: [
        ("redis:\n  sentinels: [\"10.0.0.1:26379\"]\n", "redis.master_name is needed with redis.sentinels"),
        ("redis:\n  url: redis://cache\n  master_name: bw\n", "redis.master_name needs redis.sentinels"),
        ("redis:\n  sentinels: [\"10.0.0.1:99999\"]\n  master_name: bw\n", "redis.sentinels: \"10.0.0.1:99999\""),
        ("redis:\n  sentinels: [\"pw@10.0.0.1:26379\"]\n  master_name: bw\n", "is not host:port"),
        ("redis:\n  sentinels: 10.0.0.1:26379\n  master_name: bw\n", "expected a list"),
        (
            "redis:\n  url: redis://cache\n  sentinel_password: s3cret-sentinel\n",
            "redis.sentinel_password needs redis.sentinels",
        ),
    ])
    func refusesWhatCannotFindAMaster(yaml: String, message: String) {
        let found = problems(yaml)
        #expect(found.contains { $0.contains(message) }, "\(found)")
    }

    @Test func theSentinelPasswordGoesToEverySentinelAndNotToTheMaster() throws {
        let yaml = """
            redis:
              url: "redis://:master-pw@ignored:6379"
              sentinels: ["10.0.0.1:26379", "10.0.0.2"]
              master_name: bw
              sentinel_password: "${SENTINEL_PASSWORD}"
            """
        let configuration = try ConfigurationLoader.parse(
            yaml: yaml, file: "config.yaml", baseDirectory: "/etc/breakwater",
            environment: ["SENTINEL_PASSWORD": "sentinel-pw"])
        #expect(configuration.redis.sentinelPassword == "sentinel-pw")
        let settings = try #require(try RedisSettings(configuration))
        #expect(settings.sentinels.map(\.password) == ["sentinel-pw", "sentinel-pw"])
        #expect(settings.sentinels.allSatisfy { $0.username == nil })
        #expect(settings.endpoint.password == "master-pw")
        // Masked wherever the configuration is rendered.
        let rendered = configuration.maskingSecrets().effectiveYAML
        #expect(rendered.contains(#"sentinel_password: "***""#), "\(rendered)")
        #expect(!rendered.contains("sentinel-pw"))
    }

    @Test func withoutASentinelPasswordNoSentinelIsSentAUTH() throws {
        let configuration = try parse("redis:\n  sentinels: [\"10.0.0.1:26379\"]\n  master_name: bw\n")
        let settings = try #require(try RedisSettings(configuration))
        #expect(settings.sentinels.map(\.password) == [nil])
        #expect(configuration.maskingSecrets().redis.sentinelPassword == "")
    }

    @Test func theSentinelPasswordNeedsARestart() {
        #expect(Configuration.restartOnlyKeyNames.contains("redis.sentinel_password"))
    }
}
