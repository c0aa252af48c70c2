// Starts the real `breakwater` binary as a demo origin and as a proxy on ephemeral loopback
// ports, in the style of Varnish's VTC: origin, proxy and client, then assertions.

import BreakwaterTesting
import Foundation
import Testing

/// A demo origin process with test controls.
final class DemoOriginProcess: @unchecked Sendable {
    let process: ManagedProcess
    let port: Int
    let scheme: String
    var url: String { "\(scheme)://127.0.0.1:\(port)/graphql" }
    var client: HTTPClient { HTTPClient(port: port) }

    /// A plain-HTTP origin, or an https one when a certificate is given, on `listen`.
    init(tls certificate: TestCertificate? = nil, listen: String = "127.0.0.1:0", extraArguments: [String] = []) throws {
        scheme = certificate == nil ? "http" : "https"
        let tlsArguments = certificate.map { ["--origin-tls-cert", $0.certificate, "--origin-tls-key", $0.key] } ?? []
        process = ManagedProcess(
            executable: try BreakwaterBinary.path(),
            arguments: [
                "demo", "--origin-only", "--test-controls", "--origin-listen", listen, "--threads", "1",
                "--log-level", "warning",
            ] + tlsArguments + extraArguments)
        try process.start()
        let line = try process.waitForLine(containing: "demo origin listening on", timeout: .seconds(20))
        port = try #require(ManagedProcess.listeningPort(in: line))
    }

    /// Sets fault knobs (JSON object of DemoOrigin's `/_demo/faults`).
    func setFaults(_ json: String) throws {
        let response = try client.post("/_demo/faults", json: json)
        #expect(response.status == 200, "setting faults: \(response)")
    }

    /// The origin's request counters.
    func counters() throws -> [String: Any] {
        try #require(try client.get("/_demo/counters").jsonObject)
    }

    /// Requests that reached the origin for `operation` so far (counted on arrival).
    func requests(_ operation: String) throws -> Int {
        ((try counters())["byOperation"] as? [String: Any])?[operation] as? Int ?? 0
    }

    deinit { _ = process.terminate() }
}

/// A proxy process configured by a YAML text written to a temporary folder.
final class ProxyProcess: @unchecked Sendable {
    let process: ManagedProcess
    let port: Int
    let adminPort: Int
    let directory: URL
    let configPath: String
    var client: HTTPClient { HTTPClient(port: port) }
    var admin: HTTPClient { HTTPClient(port: adminPort) }

    /// Starts `breakwater run` with `yaml` (the origin is usually given by `origin`).
    init(
        origin: String, yaml: String = "", threads: Int = 2, extraArguments: [String] = [],
        environment: [String: String] = [:], logLevel: String? = "warning"
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("config.yaml")
        configPath = config.path
        try (yaml.isEmpty ? "persisted_queries:\n  store: \"\"\n" : yaml).write(
            to: config, atomically: true, encoding: .utf8)
        process = ManagedProcess(
            executable: try BreakwaterBinary.path(),
            arguments: [
                "run", "--config", config.path, "--listen", "127.0.0.1:0", "--origin", origin,
                "--threads", String(threads), "--admin-listen", "127.0.0.1:0",
            ] + (logLevel.map { ["--log-level", $0] } ?? []) + extraArguments, environment: environment)
        try process.start()
        let line = try process.waitForLine(
            matching: { $0.contains("breakwater: listening on") }, timeout: .seconds(20))
        port = try #require(ManagedProcess.listeningPort(in: line))
        let adminLine = try process.waitForLine(containing: "admin listening on", timeout: .seconds(5))
        adminPort = try #require(ManagedProcess.listeningPort(in: adminLine))
    }

    /// The admin's `/stats` JSON.
    func stats() throws -> [String: Any] {
        try #require(try admin.get("/stats").jsonObject)
    }

    /// Rewrites the config file (for reload tests).
    func rewriteConfig(_ yaml: String) throws {
        try yaml.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit {
        _ = process.terminate()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs the `breakwater` binary to completion and returns its exit status and output.
func runBreakwater(
    _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:], currentDirectory: String? = nil
) throws -> (status: Int32, output: String) {
    try runTool(
        try BreakwaterBinary.path(), arguments, stdin: stdin, environment: environment,
        currentDirectory: currentDirectory)
}

/// Runs a tool to completion: its exit status and its stdout and stderr together.
func runTool(
    _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    currentDirectory: String? = nil
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    if !environment.isEmpty {
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    let input = Pipe()
    process.standardInput = input
    try process.run()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Whether `python3 -c "import <module>"` succeeds (the PyPI packages of `make python-deps`).
func pythonImports(_ module: String) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import \(module)"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

/// The `errors[0].extensions.code` and `errors[0].message` of a GraphQL error body.
func firstError(_ response: HTTPClientResponse) -> (message: String?, code: String?) {
    let first = (response.jsonObject?["errors"] as? [[String: Any]])?.first
    return (first?["message"] as? String, (first?["extensions"] as? [String: Any])?["code"] as? String)
}
