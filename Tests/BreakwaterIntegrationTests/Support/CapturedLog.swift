// The log records of an in-process fleet member, kept so that a test can wait for one (a
// connection attempt, a refusal) instead of sleeping and hoping it happened.

import Foundation
import Logging

/// Every record logged through `logger(label:)`, in order; thread-safe.
final class CapturedLog: @unchecked Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var records: [Record] = []

    var all: [Record] { lock.withLock { records } }

    /// A logger at trace level whose records land here.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in CapturingLogHandler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ record: Record) { lock.withLock { records.append(record) } }
}

private struct CapturingLogHandler: LogHandler {
    let sink: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let merged = self.metadata.merging(metadata ?? [:]) { _, new in new }
        sink.append(.init(level: level, message: "\(message)", metadata: merged.mapValues { "\($0)" }))
    }
}
