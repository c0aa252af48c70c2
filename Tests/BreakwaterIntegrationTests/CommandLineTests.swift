// The command line against the real binary (SPEC section 1): --version, validate opening every
// named file and masking secrets, run without a config file, demo moving off taken ports.

import BreakwaterTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized) struct CommandLineTests {
    @Test func versionPrintsTheNameAndVersion() throws {
        let (status, output) = try runBreakwater(["--version"])
        #expect(status == 0)
        let line = output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(line.hasPrefix("breakwater "))
        #expect(line.split(separator: " ").last?.split(separator: ".").count == 3, "\(line)")
    }

    @Test func validateMasksTheAdminTokenAndTheRedisPassword() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            """
            persisted_queries:
              store: ""
            admin:
              token: ${BW_TEST_TOKEN}
            redis:
              url: "redis://:hunter2@cache:6379/0"
              signing_key: ${BW_TEST_SIGNING_KEY}
            """)
        let (status, output) = try runBreakwater(
            ["validate", "--config", config],
            environment: ["BW_TEST_TOKEN": "t0psecret", "BW_TEST_SIGNING_KEY": "fleet-signing-key-0123456789"])
        #expect(status == 0, "\(output)")
        #expect(!output.contains("t0psecret"))
        #expect(!output.contains("hunter2"))
        #expect(!output.contains("fleet-signing-key"))
        #expect(output.contains(#"signing_key: "***""#))
        #expect(output.contains(#"token: "***""#))
        #expect(output.contains(#"url: "redis://:***@cache:6379/0""#))
    }

    @Test func validateWarnsOfAPerUserTypeWithoutASchemaAndStillSucceeds() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            """
            persisted_queries:
              store: ""
            origin:
              schema: off
            cache:
              types:
                User: { scope: per-user }
            """)
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 0, "\(output)")
        #expect(output.contains("config.yaml:7: warning: cache.types.User has scope per-user"), "\(output)")
        // The effective settings still follow.
        #expect(output.contains("schema: off"))
    }

    @Test func validateRefusesAShortSigningKeyAtItsLine() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml", "persisted_queries:\n  store: \"\"\nredis:\n  signing_key: tooshort\n")
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2)
        #expect(output.contains("config.yaml:4: redis.signing_key must be at least 16 bytes"), "\(output)")
        #expect(!output.contains("tooshort"))
    }

    @Test func validateOpensEveryFileTheConfigNames() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            """
            server:
              tls:
                cert: missing-cert.pem
                key: missing-key.pem
            persisted_queries:
              manifest: missing-manifest.json
              store: config.yaml/pq.log   # the folder would be a file
            origin:
              schema: missing.graphql
            """)
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2, "\(output)")
        for key in ["server.tls.cert", "server.tls.key", "persisted_queries.manifest", "persisted_queries.store", "origin.schema"] {
            #expect(output.contains("config.yaml: \(key):"), "\(key) in \(output)")
        }
    }

    @Test func validateRefusesAManifestThatIsNotJSON() throws {
        let folder = try TemporaryFolder()
        _ = try folder.write("manifest.json", "not json")
        let config = try folder.write("config.yaml", "persisted_queries:\n  store: \"\"\n  manifest: manifest.json\n")
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2)
        #expect(output.contains("persisted_queries.manifest:"))
    }

    @Test func runNeedsNoConfigFileWhenTheOriginIsGiven() throws {
        let origin = try DemoOriginProcess()
        let folder = try TemporaryFolder()
        let process = ManagedProcess(
            executable: "/bin/sh",
            arguments: [
                "-c",
                "cd '\(folder.path)' && exec '\(try BreakwaterBinary.path())' run --origin '\(origin.url)' "
                    + "--listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --threads 1",
            ])
        try process.start()
        defer { _ = process.terminate() }
        let line = try process.waitForLine(containing: "breakwater: listening on", timeout: .seconds(20))
        let port = try #require(ManagedProcess.listeningPort(in: line))
        let response = try HTTPClient(port: port).post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#)
        #expect(response.status == 200)
        #expect(response.text.contains(#""id":"1""#))
    }

    @Test func demoMovesOffTakenUsualPortsAndSaysSo() throws {
        // Hold the usual ports (or find them already held by something else: taken either way).
        let held = [8080, 4000, 9090].compactMap(PortHolder.init)
        defer { held.forEach { $0.close() } }
        let process = ManagedProcess(
            executable: try BreakwaterBinary.path(), arguments: ["demo", "--threads", "1", "--log-level", "warning"])
        try process.start()
        defer { _ = process.terminate() }
        let line = try process.waitForLine(containing: "breakwater: listening on", timeout: .seconds(20))
        let port = try #require(ManagedProcess.listeningPort(in: line))
        #expect(port != 8080)
        let output = process.output.joined(separator: "\n")
        #expect(output.contains("port 8080 (proxy) is taken; using a free port instead"))
        #expect(output.contains("port 4000 (demo origin) is taken"))
        #expect(output.contains("port 9090 (admin) is taken"))
        #expect(output.contains("127.0.0.1:\(port)/graphql"), "the curl examples use the port in use")
        let answer = try HTTPClient(port: port).post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#)
        #expect(answer.status == 200)
    }
}

/// A folder under the temporary directory, removed on deinit.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("bw-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let file = "\(path)/\(name)"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A listening socket on 127.0.0.1:port, so that the port is taken; nil when it already was.
private final class PortHolder {
    private let descriptor: Int32

    init?(_ port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard bound, listen(fd, 1) == 0 else {
            _ = Glibc.close(fd)
            return nil
        }
        descriptor = fd
    }

    func close() { _ = Glibc.close(descriptor) }
}
