// What the commands print for people and test harnesses (logs go through swift-log).

import BreakwaterCore
import BreakwaterService
import Foundation
import Logging

enum Console {
    /// A "ready" line on stdout: harnesses wait for it to learn the port.
    static func ready(_ message: String) {
        line("breakwater: \(message)")
    }

    /// One line on stdout: through the log backend once it runs (so lines keep their order
    /// and the format), else unbuffered.
    static func line(_ text: String) {
        if let backend = LogSetup.backend {
            backend.console(text)
        } else {
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
        }
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// A configuration problem on stderr, before logging runs: `file:line: message` as it is in
    /// text format; in JSON format one object (`level`, the same text as `message`, `file`, `line`).
    static func problem(_ problem: ConfigurationError.Problem, level: String, format: Configuration.LogFormat) {
        var fields: [(String, LogValue)] = [("file", .string(problem.file))]
        if problem.line > 0 { fields.append(("line", LogValue(problem.line))) }
        startError(problem.description, level: level, fields: fields, format: format)
    }

    /// A line on stderr before logging runs: `message` as it is in text format, one JSON object
    /// (with `fields`) in JSON format.
    static func startError(
        _ message: String, level: String = "error", fields: [(String, LogValue)] = [], format: Configuration.LogFormat
    ) {
        switch format {
        case .text:
            error(message)
        case .json:
            let record = LogLineFormat.Record(
                time: .now, level: level, label: "breakwater", message: message, fields: fields)
            error(LogLineFormat.line(record, format: .json))
        }
    }
}

enum LogSetup {
    /// The process's log backend, once `bootstrap` ran.
    nonisolated(unsafe) private(set) static var backend: LogBackend?

    /// Installs Breakwater's log backend with `logging` (only `main` bootstraps logging,
    /// swift-log's rule) and returns the process's logger.
    static func bootstrap(_ logging: Configuration.Logging) -> Logger {
        backend = LogBackend.bootstrap(logging)
        return Logger(label: "breakwater")
    }

    /// Writes every queued line; call before the process exits.
    static func flush() { backend?.flush() }
}

extension HostPort {
    func withPort(_ port: Int) -> HostPort { HostPort(host: host, port: port) }
}
