// The raw-frame HTTP/2 client (Tests/fixtures/h2_attacks.py, on PyPI's `h2`) seen from Swift: one
// attack or one request per run, its JSON line parsed into what the server did.

import BreakwaterTesting
import Foundation
import Testing

/// Runs Tests/fixtures/h2_attacks.py against one port, prior knowledge (h2c) or TLS with ALPN.
struct HTTP2FrameClient: HTTPRequestSending {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("fixtures/h2_attacks.py").path

    /// Python 3 with `h2` importable (`make python-deps`).
    static let isAvailable: Bool = pythonImports("h2")

    let port: Int
    var tls = false

    /// Runs one subcommand of the script with `options` before it (such as `--path`) and returns
    /// what it printed; a run that printed no JSON throws with its output.
    func run(
        _ command: String, _ arguments: [String] = [], options: [String] = [], stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> HTTP2Observation {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", Self.script, "--port", String(port)] + (tls ? ["--tls"] : []) + options + [command] + arguments
        let output = Pipe(), errors = Pipe(), input = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = input
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(
            deadline: .now() + .seconds(Int(timeout.components.seconds)), execute: watchdog)
        defer { watchdog.cancel() }
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        let stderrData = LockedValue<Data?>(nil)
        let stderrReader = Thread { stderrData.store(errors.fileHandleForReading.readDataToEndOfFile()) }
        stderrReader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").last,
            let json = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            _ = eventually(within: .seconds(2)) { stderrData.load() != nil }
            throw HTTP2FrameClientError(
                command: command, status: process.terminationStatus,
                output: text + String(decoding: stderrData.load() ?? Data(), as: UTF8.self))
        }
        return HTTP2Observation(json: json, exitStatus: process.terminationStatus)
    }

    /// One ordinary request through the `h2` package's state machine, as an HTTPClientResponse
    /// (version "HTTP/2", header names as received, lower-case on the wire).
    func send(
        method: String, target: String, headers: [(String, String)], body: [UInt8], timeout: Duration
    ) throws -> HTTPClientResponse {
        let headerArguments = headers.flatMap { ["-H", "\($0.0): \($0.1)"] }
        let observed = try run(
            "request", ["--method", method] + headerArguments + (body.isEmpty ? [] : ["--data-stdin"]),
            options: ["--path", target, "--timeout", String(Int(timeout.components.seconds))],
            stdin: body.isEmpty ? nil : body, timeout: timeout + .seconds(10))
        guard let status = observed.json["status"] as? Int else {
            throw HTTP2FrameClientError(command: "request \(method) \(target)", status: observed.exitStatus, output: "\(observed)")
        }
        let pairs = (observed.json["headers"] as? [[String]] ?? []).compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
        let text = observed.json["body"] as? String ?? ""
        let bytes =
            observed.json["body_encoding"] as? String == "base64"
            ? [UInt8](Data(base64Encoded: text) ?? Data()) : Array(text.utf8)
        return HTTPClientResponse(
            status: status, version: "HTTP/2", headers: pairs.map { (name: $0.0, value: $0.1) }, body: bytes)
    }
}

/// What one run of the frame client saw: the JSON line, with typed views of its common keys.
struct HTTP2Observation: CustomStringConvertible {
    let json: [String: Any]
    let exitStatus: Int32

    /// The GOAWAY's error code name (such as "ENHANCE_YOUR_CALM"), or nil when none came.
    var goawayError: String? { goaway?["error"] as? String }
    /// The GOAWAY's last stream id.
    var goawayLastStreamID: Int? { goaway?["last_stream_id"] as? Int }
    /// RST_STREAM frames received, counted by error code name.
    var resets: [String: Int] { json["rst"] as? [String: Int] ?? [:] }
    var resetCount: Int { resets.values.reduce(0, +) }
    /// Response statuses received, counted.
    var statuses: [String: Int] { json["statuses"] as? [String: Int] ?? [:] }
    /// Whether the server closed the connection.
    var isClosed: Bool { json["closed"] as? Bool ?? false }
    /// The connection ended: a GOAWAY other than NO_ERROR, or a close.
    var connectionEnded: Bool { (goawayError.map { $0 != "NO_ERROR" } ?? false) || isClosed }

    func int(_ key: String) -> Int? { json[key] as? Int }
    func string(_ key: String) -> String? { json[key] as? String }
    func bool(_ key: String) -> Bool? { json[key] as? Bool }

    private var goaway: [String: Any]? { json["goaway"] as? [String: Any] }

    var description: String {
        (try? JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "\(json)"
    }
}

struct HTTP2FrameClientError: Error, CustomStringConvertible {
    let command: String
    let status: Int32
    let output: String
    var description: String { "h2_attacks.py \(command) exited \(status) without a JSON line:\n\(output)" }
}
