// The command line against the real binary (README.md, "Running it in front of your origin"):
// --version, validate opening every named file and masking secrets, run refusing files it cannot
// write and writing only JSON lines in JSON format, run without a config file, demo moving off
// taken ports.

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
            environment: ["BW_TEST_TOKEN": "t0psecret-0123456789abcdef", "BW_TEST_SIGNING_KEY": "fleet-signing-key-0123456789"])
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
        for (key, line) in [
            ("server.tls.cert", 3), ("server.tls.key", 4), ("persisted_queries.manifest", 6),
            ("persisted_queries.store", 7), ("origin.schema", 9),
        ] {
            #expect(output.contains("config.yaml:\(line): \(key):"), "\(key) in \(output)")
        }
    }

    @Test func validateRefusesAnAccessLogInAMissingFolderAtItsLine() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            "persisted_queries:\n  store: \"\"\nlogging:\n  format: json\n  access_log: /nonexistent-dir/access.log\n")
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2, "\(output)")
        #expect(
            output.contains("config.yaml:5: logging.access_log: folder /nonexistent-dir does not exist"), "\(output)")
    }

    @Test func validateRefusesAStoreFolderThatIsMissingAndCreatesNone() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write("config.yaml", "origin:\n  schema: off\npersisted_queries:\n  store: sate/pq.log\n")
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2, "\(output)")
        #expect(output.contains("config.yaml:4: persisted_queries.store: folder \(folder.path)/sate does not exist"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/sate"))
        // Once the folder exists the file is valid, and checking it leaves no store file behind.
        try FileManager.default.createDirectory(atPath: folder.path + "/sate", withIntermediateDirectories: false)
        #expect(try runBreakwater(["validate", "--config", config]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/sate").isEmpty)
    }

    @Test(arguments: [
        ("change-me", "admin.token is a placeholder"), ("changeme", "admin.token is a placeholder"),
        ("${BREAKWATER_ADMIN_TOKEN}", "admin.token holds an environment reference left unexpanded"),
        ("short-token", "admin.token must be at least 16 bytes (it is 11)"),
    ])
    func validateRefusesAPlaceholderAdminTokenAtItsLine(token: String, message: String) throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml", "persisted_queries:\n  store: \"\"\nadmin:\n  token: ${BW_TEST_TOKEN}\n")
        let (status, output) = try runBreakwater(
            ["validate", "--config", config], environment: ["BW_TEST_TOKEN": token])
        #expect(status == 2, "\(output)")
        #expect(output.contains("config.yaml:4: \(message)"), "\(output)")
        // And written in the file itself, as the template shipped it.
        let literal = try folder.write("literal.yaml", "persisted_queries:\n  store: \"\"\nadmin:\n  token: change-me\n")
        let refused = try runBreakwater(["validate", "--config", literal])
        #expect(refused.status == 2)
        #expect(refused.output.contains("literal.yaml:4: admin.token is a placeholder"), "\(refused.output)")
    }

    @Test func runRefusesToStartWhenItCannotOpenTheAccessLogOrTheStore() throws {
        let folder = try TemporaryFolder()
        let config = try folder.write(
            "config.yaml",
            "persisted_queries:\n  store: state/pq.log\nlogging:\n  access_log: /nonexistent-dir/access.log\n")
        let (status, output) = try runBreakwater([
            "run", "--config", config, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
            "--origin", "http://127.0.0.1:9/graphql",
        ])
        #expect(status == 2, "\(output)")
        #expect(output.contains("config.yaml:2: persisted_queries.store: folder \(folder.path)/state does not exist"), "\(output)")
        #expect(output.contains("config.yaml:4: logging.access_log: folder /nonexistent-dir does not exist"), "\(output)")
        #expect(!output.contains("listening on"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/state"), "run creates no folder")
    }

    @Test func runInJSONFormatRefusesToStartWithOnlyJSONLines() throws {
        let folder = try TemporaryFolder()
        // A warning (per-user type without a schema) and an error (the access log's folder).
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
            logging:
              format: json
              access_log: /nonexistent-dir/access.log
            """)
        let (status, output) = try runBreakwater([
            "run", "--config", config, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
        ])
        #expect(status == 2, "\(output)")
        let objects = try Self.jsonObjects(output)
        #expect(objects.map { $0["level"] as? String } == ["warning", "error"], "\(output)")
        #expect(objects.last?["line"] as? Int == 10, "line is a number, as every number in a JSON line")
        #expect((objects.last?["message"] as? String)?.contains("config.yaml:10: logging.access_log:") == true)
        // A bad flag is a start-up error too.
        let badFlag = try runBreakwater(["run", "--config", config, "--origin", "ftp://origin"])
        #expect(badFlag.status == 64, "\(badFlag.output)")
        #expect(
            try Self.jsonObjects(badFlag.output).last?["message"] as? String
                == #"--origin: expected an http:// or https:// URL, got "ftp://origin""#)
        // A file with problems: its format is still honoured when it could be read.
        let bad = try folder.write("bad.yaml", "logging:\n  format: json\nserver:\n  threadz: 2\n")
        let refused = try runBreakwater(["run", "--config", bad])
        #expect(refused.status == 2)
        #expect(try Self.jsonObjects(refused.output).first?["message"] as? String == "\(bad):4: unknown key \"threadz\" in server (did you mean \"threads\"?)")
    }

    @Test func runInJSONFormatServesAndReloadsWithOnlyJSONLines() throws {
        let origin = try DemoOriginProcess()
        let folder = try TemporaryFolder()
        let yaml = """
            persisted_queries:
              store: ""
            origin:
              schema: off
            cache:
              types:
                User: { scope: per-user }
            logging:
              format: json
              access_log: stderr
            """
        let config = try folder.write("config.yaml", yaml)
        let process = ManagedProcess(
            executable: try BreakwaterBinary.path(),
            arguments: [
                "run", "--config", config, "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0",
                "--origin", origin.url, "--threads", "1",
            ])
        try process.start()
        defer { _ = process.terminate() }
        let line = try process.waitForLine(containing: "breakwater: listening on", timeout: .seconds(20))
        let port = try #require(ManagedProcess.listeningPort(in: line))
        #expect(try HTTPClient(port: port).post("/graphql", json: #"{"query":"{ launch(id: \"1\") { id } }"}"#).status == 200)
        _ = try process.waitForLine(containing: #""type":"access""#, timeout: .seconds(5))
        // A reload to an access log that cannot be opened is refused, and said in JSON.
        _ = try folder.write("config.yaml", yaml.replacingOccurrences(of: "access_log: stderr", with: "access_log: /nonexistent-dir/a.log"))
        process.signal(SIGHUP)
        let refused = try process.waitForLine(containing: "reload failed", timeout: .seconds(5))
        #expect(refused.contains("config.yaml:10: logging.access_log: folder /nonexistent-dir does not exist"), "\(refused)")
        #expect(process.terminate() == 0)
        let output = process.output.joined(separator: "\n")
        let objects = try Self.jsonObjects(output)
        #expect(objects.contains { ($0["message"] as? String)?.contains("warning: cache.types.User") == true }, "\(output)")
    }

    /// Every line of `output` as a JSON object; records an issue for each line that is not one.
    private static func jsonObjects(_ output: String) throws -> [[String: Any]] {
        var objects: [[String: Any]] = []
        for line in output.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let object else {
                Issue.record("not a JSON object: \(line)")
                continue
            }
            objects.append(object)
        }
        return objects
    }

    @Test func validateRefusesAManifestThatIsNotJSON() throws {
        let folder = try TemporaryFolder()
        _ = try folder.write("manifest.json", "not json")
        let config = try folder.write("config.yaml", "persisted_queries:\n  store: \"\"\n  manifest: manifest.json\n")
        let (status, output) = try runBreakwater(["validate", "--config", config])
        #expect(status == 2)
        #expect(output.contains("persisted_queries.manifest:"))
    }

    @Test func runWithTheOriginAndNoConfigFileServesAndWritesNoFiles() throws {
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
        // A registration goes to the registry in memory: nothing is written where it was started.
        let document = "query GetLaunch { launch(id: \"2\") { id } }"
        let registered = try HTTPClient(port: port).post("/graphql", json: APQ.registeringPOST(document, operationName: nil))
        #expect(registered.status == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no ./data in the working folder")
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

    /// The demo samples every entry for freshness unless told otherwise, and says how to read
    /// the suggestions; `--sample 0` turns that off, and a share above 1 is a usage error.
    @Test func demoSamplesForFreshnessAndPrintsTheAdviseLine() throws {
        for (arguments, advises) in [([String](), true), (["--sample", "0"], false)] {
            let process = ManagedProcess(
                executable: try BreakwaterBinary.path(),
                arguments: ["demo", "--threads", "1", "--log-level", "warning", "--listen", "127.0.0.1:0",
                    "--origin-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"] + arguments)
            try process.start()
            defer { _ = process.terminate() }
            let adminLine = try process.waitForLine(containing: "admin listening on", timeout: .seconds(20))
            let adminPort = try #require(ManagedProcess.listeningPort(in: adminLine))
            let advise = "breakwater advise --admin http://127.0.0.1:\(adminPort)"
            if advises {
                _ = try process.waitForLine(containing: advise, timeout: .seconds(5))
            } else {
                _ = try process.waitForLine(containing: "Authorization", timeout: .seconds(5))
                #expect(!process.output.joined(separator: "\n").contains("breakwater advise"))
            }
        }
        let refused = try runBreakwater(["demo", "--sample", "2"])
        #expect(refused.status == 64, "\(refused.output)")
        #expect(refused.output.contains("--sample"), "\(refused.output)")
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
