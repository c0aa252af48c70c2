// What the commands print for people and test harnesses (logs go through swift-log).

import BreakwaterCore
import Foundation
import Logging

enum Console {
    /// A "ready" line on stdout, flushed at once: harnesses wait for it to learn the port.
    static func ready(_ message: String) {
        line("breakwater: \(message)")
    }

    /// One line on stdout, unbuffered.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

enum LogSetup {
    /// Sends logs to stderr at `level`; only `main` bootstraps logging (swift-log's rule).
    static func bootstrap(level: Configuration.LogLevel) -> Logger {
        LoggingSystem.bootstrap { label in
            if label == "breakwater.access" { return AccessLogHandler() }
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: level.rawValue) ?? .info
            return handler
        }
        return Logger(label: "breakwater")
    }
}

extension HostPort {
    func withPort(_ port: Int) -> HostPort { HostPort(host: host, port: port) }
}
