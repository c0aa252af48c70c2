// RedisEndpoint: every `redis.url` form of README "Configuration", and the refusals that name the problem.

import BreakwaterCore
import Testing

struct RedisEndpointTests {
    @Test(arguments: [
        ("redis://127.0.0.1:6380", RedisEndpoint(address: .tcp(host: "127.0.0.1", port: 6380))),
        ("redis://cache.internal", RedisEndpoint(address: .tcp(host: "cache.internal", port: 6379))),
        ("redis://:s3cret@redis:6379/2",
         RedisEndpoint(address: .tcp(host: "redis", port: 6379), password: "s3cret", database: 2)),
        ("redis://proxy:pa%40ss%3Aw@redis:7000",
         RedisEndpoint(address: .tcp(host: "redis", port: 7000), username: "proxy", password: "pa@ss:w")),
        ("redis://[::1]:6390/0", RedisEndpoint(address: .tcp(host: "::1", port: 6390))),
        ("redis://redis:6379/", RedisEndpoint(address: .tcp(host: "redis", port: 6379))),
        ("unix:///run/redis/redis.sock", RedisEndpoint(address: .unix(path: "/run/redis/redis.sock"))),
        ("unix:///tmp/r.sock?db=3&password=x",
         RedisEndpoint(address: .unix(path: "/tmp/r.sock"), password: "x", database: 3)),
    ])
    func parsesEveryForm(url: String, expected: RedisEndpoint) throws {
        #expect(try RedisEndpoint(parsing: url) == expected)
    }

    @Test(arguments: [
        ("http://redis:6379", "must start with"),
        ("rediss://redis:6379", "TLS"),
        ("redis://:6379", "host is missing"),
        ("redis://redis:0", "port"),
        ("redis://redis:70000", "port"),
        ("redis://redis:abc", "port"),
        ("redis://redis:6379/x", "database"),
        ("redis://redis:6379/-1", "database"),
        ("redis://[::1:6379", "unclosed"),
        ("unix://relative.sock", "absolute"),
        ("unix:///tmp/r.sock?timeout=1", "unknown parameter"),
        ("redis://:%zz@redis", "hex digits"),
    ])
    func refusesWithAMessageNamingTheProblem(url: String, fragment: String) {
        #expect {
            _ = try RedisEndpoint(parsing: url)
        } throws: { error in
            (error as? RedisEndpointError)?.message.contains(fragment) == true
        }
    }

    @Test func descriptionHidesThePassword() throws {
        let endpoint = try RedisEndpoint(parsing: "redis://app:topsecret@redis:6379/1")
        #expect(endpoint.description == "redis://app:***@redis:6379/1")
        #expect(!endpoint.description.contains("topsecret"))
        #expect(try RedisEndpoint(parsing: "unix:///s.sock?password=p").description == "unix:///s.sock")
    }
}
