// `redis.purge_log`: parsed, defaulted, rendered by `validate`, and carried into RedisSettings.

import BreakwaterCore
import Testing

struct PurgeLogSettingsTests {
    static func parse(_ yaml: String) throws -> Configuration {
        try ConfigurationLoader.parse(yaml: yaml, file: "config.yaml", baseDirectory: "/etc/breakwater")
    }

    @Test func thePurgeLogKeepsAHundredThousandPurgesUnlessTold() throws {
        let defaulted = try Self.parse("redis:\n  url: redis://cache:6379\n")
        #expect(defaulted.redis.purgeLog == 100_000)
        let off = try Self.parse("redis:\n  url: redis://cache:6379\n  purge_log: 0\n")
        #expect(off.redis.purgeLog == 0)
        #expect(try RedisSettings(off)?.purgeLogLength == 0)
        let set = try Self.parse("redis:\n  url: redis://cache:6379\n  purge_log: 5000\n")
        #expect(try RedisSettings(set)?.purgeLogLength == 5000)
        #expect(set.effectiveYAML.contains("purge_log: 5000"))
        #expect(try Self.parse(set.effectiveYAML) == set)
        #expect(throws: ConfigurationError.self) { try Self.parse("redis:\n  purge_log: -1\n") }
    }
}
