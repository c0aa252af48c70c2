// `breakwater validate` on `cdn:` (docs/CDN.md, "Settings"): tokens printed as `***`, targets
// without a tag header refused at their line.

import BreakwaterTesting
import Foundation
import Testing

@Suite struct CDNValidateTests {
    @Test func validateMasksEveryCDNToken() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            """
            persisted_queries:
              store: ""
            cache:
              tag_header: Surrogate-Key
            cdn:
              targets:
                - kind: fastly
                  service_id: SU1Z0isxPaozGVKXdv0eY
                  token: ${BW_TEST_FASTLY_TOKEN}
                - kind: cloudflare
                  zone_id: 023e105f4ecef8ad9ca31a8372d0c353
                  token: "cloudflare-secret-0123"
                - kind: http
                  url: "https://hooks.example.com/purge"
                  token: "webhook-secret-0123"
            """)
        let (status, output) = try runBreakwater(
            ["validate", "--config", config], environment: ["BW_TEST_FASTLY_TOKEN": "fastly-secret-0123"])
        #expect(status == 0, "\(output)")
        for secret in ["fastly-secret", "cloudflare-secret", "webhook-secret"] { #expect(!output.contains(secret)) }
        #expect(output.components(separatedBy: #"token: "***""#).count == 4, "\(output)")
        #expect(output.contains(#"service_id: "SU1Z0isxPaozGVKXdv0eY""#))
    }

    @Test func validateRefusesTargetsWithoutATagHeader() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            """
            persisted_queries:
              store: ""
            cdn:
              targets:
                - kind: varnish
                  urls: ["http://127.0.0.1:6081/"]
            """)
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2)
        #expect(output.contains("config.yaml:3: cdn.targets needs cache.tag_header"), "\(output)")
    }
}
