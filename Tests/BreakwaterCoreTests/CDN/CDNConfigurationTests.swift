// `cdn:` in config.yaml (docs/CDN.md, "Settings"): targets parsed, checked and masked; no
// target without a tag header; the effective settings read back equal.

import BreakwaterCore
import Foundation
import Testing

struct CDNConfigurationTests {
    static func parse(_ yaml: String) throws(ConfigurationError) -> Configuration { try ParsedConfiguration.parse(yaml) }

    static func problems(_ yaml: String) -> [String] { ParsedConfiguration.problems(yaml) }

    static let full = """
        cache:
          tag_header: Surrogate-Key
        cdn:
          targets:
            - kind: varnish
              urls: ["http://127.0.0.1:6081/", "http://10.0.0.2:6081/"]
            - kind: fastly
              service_id: SU1Z0isxPaozGVKXdv0eY
              token: "fastly-secret-token"
              soft: true
            - kind: cloudflare
              zone_id: 023e105f4ecef8ad9ca31a8372d0c353
              token: "cloudflare-secret-token"
              api_url: "https://127.0.0.1:8443/client/v4"
            - kind: http
              url: "https://hooks.example.com/purge"
              token: "hook-secret-token"
          batch_window: 20ms
          timeout: 1s
          retries: 5
          max_queue: 500
        """

    @Test func everyTargetKindParses() throws {
        let cdn = try Self.parse(Self.full).cdn
        #expect(cdn.targets == [
            .varnish(urls: [OriginURL(parsing: "http://127.0.0.1:6081/")!, OriginURL(parsing: "http://10.0.0.2:6081/")!]),
            .fastly(serviceID: "SU1Z0isxPaozGVKXdv0eY", token: "fastly-secret-token", soft: true, apiURL: CDNTarget.fastlyAPI),
            .cloudflare(
                zoneID: "023e105f4ecef8ad9ca31a8372d0c353", token: "cloudflare-secret-token",
                apiURL: OriginURL(parsing: "https://127.0.0.1:8443/client/v4")!),
            .http(url: OriginURL(parsing: "https://hooks.example.com/purge")!, token: "hook-secret-token"),
        ])
        #expect(cdn.batchWindow == .milliseconds(20))
        #expect(cdn.timeout == .seconds(1))
        #expect(cdn.retries == 5)
        #expect(cdn.maxQueue == 500)
    }

    @Test func defaultsFollowTheDocumentedValues() throws {
        let cdn = try Self.parse("").cdn
        #expect(cdn.targets.isEmpty)
        #expect(cdn.batchWindow == .milliseconds(50))
        #expect(cdn.timeout == .seconds(2))
        #expect(cdn.retries == 3)
        #expect(cdn.maxQueue == 10_000)
    }

    @Test func effectiveYAMLReadsBackEqualAndMasksEveryToken() throws {
        let configuration = try Self.parse(Self.full)
        #expect(try Self.parse(configuration.effectiveYAML) == configuration)
        let masked = configuration.maskingSecrets().effectiveYAML
        for secret in ["fastly-secret-token", "cloudflare-secret-token", "hook-secret-token"] {
            #expect(!masked.contains(secret))
        }
        #expect(masked.components(separatedBy: "token: \"***\"").count == 4)
    }

    @Test func targetsWithoutATagHeaderAreRefused() {
        let found = Self.problems("cdn:\n  targets:\n    - kind: varnish\n      urls: [\"http://127.0.0.1:6081/\"]\n")
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("config.yaml:1: cdn.targets needs cache.tag_header") == true)
    }

    @Test(arguments: [
        ("- kind: varnish", "cdn.targets[0] needs urls"),
        ("- kind: varnish\n      urls: []", "must name at least one Varnish URL"),
        ("- kind: varnish\n      urls: [\"ftp://x/\"]", "\"ftp://x/\" is not an http:// or https:// URL"),
        ("- kind: fastly\n      token: abcdefgh", "cdn.targets[0] needs service_id"),
        ("- kind: fastly\n      service_id: svc", "cdn.targets[0] needs token"),
        ("- kind: fastly\n      service_id: svc\n      token: \"\"", "cdn.targets[0].token must be set"),
        ("- kind: fastly\n      service_id: \"a/b\"\n      token: t", "\"a/b\" is not an id"),
        ("- kind: cloudflare\n      zone_id: z\n      token: \"has space\"", "printable ASCII without spaces"),
        ("- kind: cloudflare\n      token: t", "cdn.targets[0] needs zone_id"),
        ("- kind: http", "cdn.targets[0] needs url"),
        ("- kind: http\n      url: nope", "\"nope\" is not an http:// or https:// URL"),
        ("- kind: akamai", "\"akamai\" is not one of varnish, fastly, cloudflare, http"),
        ("- urls: [\"http://a/\"]", "cdn.targets[0] needs kind"),
        ("- kind: varnish\n      urls: [\"http://a/\"]\n      token: x", "unknown key \"token\" in cdn.targets[0]"),
    ])
    func badTargetsAreReportedByLine(target: String, message: String) {
        let yaml = "cache:\n  tag_header: xkey\ncdn:\n  targets:\n    \(target)\n"
        let found = Self.problems(yaml)
        #expect(found.contains { $0.contains(message) }, "\(found)")
        #expect(found.allSatisfy { $0.hasPrefix("config.yaml:") })
    }

    @Test func tokenMessagesNeverHoldTheToken() {
        let found = Self.problems(
            "cache:\n  tag_header: xkey\ncdn:\n  targets:\n    - kind: fastly\n      service_id: s\n      token: \"sec ret\"\n")
        #expect(!found.isEmpty)
        #expect(found.allSatisfy { !$0.contains("sec ret") })
    }

    @Test func theWebhookTokenIsOptional() throws {
        let configuration = try Self.parse(
            "cache:\n  tag_header: xkey\ncdn:\n  targets:\n    - kind: http\n      url: \"http://127.0.0.1:9000/\"\n")
        #expect(configuration.cdn.targets == [.http(url: OriginURL(parsing: "http://127.0.0.1:9000/")!, token: "")])
    }

    @Test func aReloadKeepsTheRunningTargets() throws {
        let running = try Self.parse(Self.full)
        let next = try Self.parse(Self.full.replacingOccurrences(of: "retries: 5", with: "retries: 1"))
        #expect(running.restartOnlyChanges(to: next) == ["cdn"])
        #expect(running.reloadable(from: next).cdn == running.cdn)
    }
}
