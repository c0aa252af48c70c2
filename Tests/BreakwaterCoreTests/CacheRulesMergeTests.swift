// `breakwater advise --merge`: suggested TTLs merged into a configuration's text, keeping its
// layout and comments, and reading back as the rules meant.

import Testing

@testable import BreakwaterCore

@Suite struct CacheRulesMergeTests {
    static let rules = [
        CacheRulesMerge.Rule(operation: "GetLaunches", ttl: "4s", comments: ["GetLaunches: 400 samples"]),
        CacheRulesMerge.Rule(operation: "GetRockets", ttl: "90s", comments: ["GetRockets: 500 samples, 0 changed"]),
        CacheRulesMerge.Rule(operation: "GetTime", ttl: nil, comments: ["GetTime changes too fast to cache"]),
    ]

    static func merged(_ yaml: String, _ rules: [CacheRulesMerge.Rule] = rules) throws -> String {
        try CacheRulesMerge.merged(yaml: yaml, file: "config.yaml", rules: rules)
    }

    static func loadedRules(_ yaml: String) throws -> [Configuration.CacheRule] {
        try ConfigurationLoader.read(yaml: yaml, file: "merged.yaml", baseDirectory: ".").configuration.cache.rules
    }

    static let shipped = """
        # Breakwater configuration.
        server:
          listen: "127.0.0.1:8080"   # the proxy

        cache:
          max_bytes: 256MiB
          rules:                      # first match wins
            - operation: GetLaunches
              ttl: 30s                # the list
            - operation: GetTime
              ttl: 5s
            - operation: Me
              ttl: 1m
              scope: per-user

        admin:
          listen: "127.0.0.1:9090"
          token: ""                   # set to require a token
        """ + "\n"

    @Test func aRuleForTheSameOperationGetsItsTTLReplacedAndNewOnesGoAtTheEnd() throws {
        let text = try Self.merged(Self.shipped)
        #expect(text.contains("      ttl: 4s                # the list\n"), "\(text)")
        #expect(text.contains("    # advise: GetLaunches: 400 samples\n    - operation: GetLaunches\n"), "\(text)")
        // No TTL for GetTime: its rule stays as it was, with the evidence above it.
        #expect(text.contains("    # advise: GetTime changes too fast to cache\n    - operation: GetTime\n      ttl: 5s\n"))
        #expect(
            text.contains(
                "      scope: per-user\n    # advise: GetRockets: 500 samples, 0 changed\n    - operation: GetRockets\n      ttl: 90s\n\nadmin:"),
            "\(text)")
        // Everything else is the file as it was.
        let untouched = Self.shipped.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.isEmpty && !$0.contains("ttl: 30s") }
        for line in untouched { #expect(text.contains(line), "lost: \(line)") }
        let rules = try Self.loadedRules(text)
        #expect(rules.map(\.operation) == ["GetLaunches", "GetTime", "Me", "GetRockets"])
        #expect(rules.map(\.ttl) == [.seconds(4), .seconds(5), .seconds(60), .seconds(90)])
        #expect(rules[2].scope == .perUser)
    }

    @Test func mergingTwiceReplacesTheCommentsInsteadOfPilingThemUp() throws {
        let once = try Self.merged(Self.shipped)
        let again = try Self.merged(once, [
            .init(operation: "GetLaunches", ttl: "6s", comments: ["GetLaunches: 900 samples"]),
            .init(operation: "GetRockets", ttl: "2m", comments: ["GetRockets: 800 samples"]),
        ])
        #expect(!again.contains("400 samples") && !again.contains("500 samples"), "\(again)")
        #expect(again.contains("    # advise: GetLaunches: 900 samples\n    - operation: GetLaunches\n"))
        #expect(again.components(separatedBy: "operation: GetRockets").count == 2, "one GetRockets rule: \(again)")
        #expect(try Self.loadedRules(again).map(\.ttl) == [.seconds(6), .seconds(5), .seconds(60), .seconds(120)])
    }

    @Test(arguments: [
        ("server:\n  listen: \"127.0.0.1:8080\"\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n  max_bytes: 1MiB\nadmin:\n  token: \"\"\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n  rules: []\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n  rules:\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n", ["GetLaunches", "GetRockets"]),
        ("", ["GetLaunches", "GetRockets"]),
        ("cache:\n  rules:\n  - {operation: GetLaunches, ttl: 30s, scope: public}\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n  rules:\n    - operation: GetLaunches\n      scope: public\n", ["GetLaunches", "GetRockets"]),
        ("cache:\n  rules:\n    - operation: \"GetLaunches\"\n      ttl: \"30s\" # quoted\n", ["GetLaunches", "GetRockets"]),
    ])
    func everyLayoutOfCacheRulesTakesTheRules(yaml: String, operations: [String]) throws {
        let text = try Self.merged(yaml)
        let rules = try Self.loadedRules(text)
        #expect(rules.map(\.operation) == operations, "\(text)")
        #expect(rules.map(\.ttl) == [.seconds(4), .seconds(90)], "\(text)")
    }

    @Test func aFileItCannotEditIsAClearError() {
        for yaml in ["cache: {rules: []}\n", "- a\n- b\n", "cache:\n  rules: [{operation: X, ttl: 1s}]\n", "a: [\n"] {
            #expect(throws: CacheRulesMerge.Failure.self, "\(yaml)") { try Self.merged(yaml) }
        }
    }
}
