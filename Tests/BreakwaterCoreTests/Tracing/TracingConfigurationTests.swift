// `tracing:` in config.yaml (docs/TRACING.md, "Settings"): the endpoint and ratio read and
// checked at their lines, the effective settings read back equal, and which key needs a restart.

import BreakwaterCore
import Testing

struct TracingConfigurationTests {
    static func parse(_ yaml: String) throws(ConfigurationError) -> Configuration { try ParsedConfiguration.parse(yaml) }

    static func problems(_ yaml: String) -> [String] { ParsedConfiguration.problems(yaml) }

    @Test func defaultsExportNothingAndSampleOnePercent() throws {
        let tracing = try Self.parse("").tracing
        #expect(tracing.otlpEndpoint == nil)
        #expect(tracing.sampleRatio == 0.01)
        #expect(try Self.parse("tracing:\n  otlp_endpoint: \"\"\n").tracing.otlpEndpoint == nil)
    }

    @Test func theEndpointAndRatioAreRead() throws {
        let tracing = try Self.parse(
            "tracing:\n  otlp_endpoint: http://127.0.0.1:4318/v1/traces\n  sample_ratio: 0.25\n"
        ).tracing
        #expect(tracing.otlpEndpoint == OriginURL(parsing: "http://127.0.0.1:4318/v1/traces"))
        #expect(tracing.sampleRatio == 0.25)
    }

    @Test func aBadEndpointOrRatioIsAProblemAtItsLine() {
        #expect(
            Self.problems("tracing:\n  otlp_endpoint: grpc://collector:4317\n") == [
                "config.yaml:2: tracing.otlp_endpoint: \"grpc://collector:4317\" is not an http:// or https:// URL "
                    + "(an OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces)"
            ])
        #expect(
            Self.problems("tracing:\n  otlp_endpoint: \"\"\n  sample_ratio: 1.5\n") == [
                "config.yaml:3: tracing.sample_ratio: \"1.5\" is not a share from 0 to 1 (e.g. 0.01)"
            ])
        #expect(Self.problems("tracing:\n  sample_ratio: -0.1\n").count == 1)
        #expect(Self.problems("tracing:\n  sample_rate: 0.1\n").first?.contains("sample_ratio") == true, "did you mean")
    }

    @Test func theEffectiveSettingsReadBackEqual() throws {
        let configuration = try Self.parse(
            "tracing:\n  otlp_endpoint: https://otel.example.com:4318/v1/traces\n  sample_ratio: 0.5\n")
        let yaml = configuration.effectiveYAML
        #expect(yaml.contains("tracing:\n  otlp_endpoint: \"https://otel.example.com:4318/v1/traces\"\n  sample_ratio: 0.5\n"))
        #expect(try Self.parse(yaml).tracing == configuration.tracing)
    }

    @Test func theEndpointNeedsARestartAndTheRatioReloads() throws {
        let running = Configuration()
        var next = running
        next.tracing.otlpEndpoint = OriginURL(parsing: "http://127.0.0.1:4318/v1/traces")
        next.tracing.sampleRatio = 1
        #expect(running.restartOnlyChanges(to: next) == ["tracing.otlp_endpoint"])
        let applied = running.reloadable(from: next)
        #expect(applied.tracing.otlpEndpoint == nil)
        #expect(applied.tracing.sampleRatio == 1)
    }
}
