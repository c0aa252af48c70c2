// Breakwater's one swift-log backend (docs/OPERATING.md, "Logs"): every logger's records go through one writer
// thread, in `logging.format` (text or JSON lines), at `logging.level`. The access log does not
// go through swift-log: the loops format its lines into per-loop buffers (ProxyAccessLog) that the
// same thread takes in batches. SIGHUP applies new logging settings and reopens an access-log file
// (for logrotate).

import BreakwaterCore
import BreakwaterServer
import Logging
import Synchronization

/// The process's logging: bootstrapped once, reconfigured on reload.
package final class LogBackend: Sendable {
    private let writer = LogWriter()
    private let level: Atomic<UInt8>
    private let json: Atomic<Bool>

    private init(_ logging: Configuration.Logging) {
        level = Atomic(Self.rank(Logger.Level(logging.level)))
        json = Atomic(logging.format == .json)
        writer.enqueue(.configure(logging.format, logging.accessLog, reopen: true))
    }

    /// Installs the backend as swift-log's handler factory (once per process) and returns it.
    package static func bootstrap(_ logging: Configuration.Logging) -> LogBackend {
        let backend = LogBackend(logging)
        LoggingSystem.bootstrap { label in BackendHandler(label: label, backend: backend) }
        return backend
    }

    /// Takes reloaded settings: level and format at once, the access-log destination (a file is
    /// reopened even when its path is unchanged, so a rotated file is left behind).
    package func apply(_ logging: Configuration.Logging) {
        level.store(Self.rank(Logger.Level(logging.level)), ordering: .relaxed)
        json.store(logging.format == .json, ordering: .relaxed)
        writer.enqueue(.configure(logging.format, logging.accessLog, reopen: true))
    }

    /// A line for people and harnesses on stdout ("breakwater: listening on ..."): as it is in
    /// text format, as a JSON object (level notice) in JSON format.
    package func console(_ message: String) {
        if json.load(ordering: .relaxed) {
            let record = LogLineFormat.Record(
                time: .now, level: "notice", label: "breakwater", message: message, fields: [])
            writer.enqueue(.record(record, toStdout: true))
        } else {
            writer.enqueue(.console(message))
        }
    }

    /// Has the writer take and write the proxy's access-log lines (call once, before serving).
    package func attach(_ accessLog: ProxyAccessLog) {
        writer.attach(accessLog)
    }

    /// Waits until every queued line is written (before the process exits).
    package func flush() { writer.flush() }

    fileprivate var threshold: Logger.Level { Self.levels[Int(level.load(ordering: .relaxed))] }

    fileprivate func log(_ event: LogEvent, label: String, handlerMetadata: Logger.Metadata) {
        var fields = handlerMetadata.sorted { $0.key < $1.key }.map { ($0.key, Self.value($0.value)) }
        if let metadata = event.metadata {
            fields += metadata.sorted { $0.key < $1.key }.map { ($0.key, Self.value($0.value)) }
        }
        if let error = event.error { fields.append(("error", .string("\(error)"))) }
        let record = LogLineFormat.Record(
            time: .now, level: event.level.rawValue, label: label, message: event.message.description, fields: fields)
        writer.enqueue(.record(record, toStdout: false))
    }

    /// A metadata value typed for the line: numbers, Booleans and durations (in seconds) given
    /// as `.stringConvertible` stay numbers in JSON; `.string` values stay strings.
    private static func value(_ metadata: Logger.MetadataValue) -> LogValue {
        guard case .stringConvertible(let value) = metadata else { return .string("\(metadata)") }
        switch value {
        case let number as Int: return LogValue(number)
        case let number as Int64: return LogValue(Int(number))
        case let number as UInt64: return number <= UInt64(Int.max) ? LogValue(Int(number)) : .number(String(number))
        case let number as Double: return LogValue(number)
        case let flag as Bool: return .bool(flag)
        case let duration as Duration: return LogValue(seconds: duration)
        case let typed as LogValue: return typed
        default: return .string(value.description)
        }
    }

    private static let levels: [Logger.Level] = [.trace, .debug, .info, .notice, .warning, .error, .critical]

    private static func rank(_ level: Logger.Level) -> UInt8 {
        UInt8(levels.firstIndex(of: level) ?? 2)
    }
}

/// The handler every `Logger` gets: filters by the backend's current level and hands records to
/// the writer.
private struct BackendHandler: LogHandler {
    let label: String
    let backend: LogBackend
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { backend.threshold }
        // The level is the process's (`logging.level`), set through the backend, not per logger.
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        backend.log(event, label: label, handlerMetadata: metadata)
    }
}

extension Logger.Level {
    fileprivate init(_ level: Configuration.LogLevel) {
        self = Logger.Level(rawValue: level.rawValue) ?? .info
    }
}
