// The access log's own swift-log handler: each message is already one JSON line, written to
// stdout as it is, whatever the log level of the rest of the process.

import Foundation
import Logging

/// Writes access-log messages, one per line, to standard output.
struct AccessLogHandler: LogHandler {
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        FileHandle.standardOutput.write(Data((event.message.description + "\n").utf8))
    }
}
