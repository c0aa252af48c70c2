// One log line in either of `logging.format`'s forms (docs/OPERATING.md, "Logs"): `text` for
// people ("2026-11-23T16:04:05.123Z warning breakwater.origin: origin failed operation=GetLaunches
// origin_status=- reason=timeout request_id=..."), `json` for collectors (one object per line, the
// same fields as members, numbers as numbers and an absent value as `null`).

/// Renders log records as single lines.
package enum LogLineFormat {
    /// A record: when, how severe, which logger, what, and its key/value details in order.
    package struct Record: Sendable {
        package var time: LogTimestamp
        package var level: String
        package var label: String
        package var message: String
        package var fields: [(String, LogValue)]

        package init(time: LogTimestamp, level: String, label: String, message: String, fields: [(String, LogValue)]) {
            self.time = time
            self.level = level
            self.label = label
            self.message = message
            self.fields = fields
        }
    }

    /// The line for `record`, without its newline.
    package static func line(_ record: Record, format: Configuration.LogFormat) -> String {
        switch format {
        case .json:
            var line = "{\"time\":\"\(record.time.rfc3339)\",\"level\":\(JSONText.quoted(record.level))"
            line += ",\"logger\":\(JSONText.quoted(record.label)),\"message\":\(JSONText.quoted(record.message))"
            for (key, value) in record.fields where !reserved.contains(key) {
                line += ",\(JSONText.quoted(key)):\(value.json)"
            }
            return line + "}"
        case .text:
            var line = "\(record.time.rfc3339) \(record.level) \(record.label): \(singleLine(record.message))"
            for (key, value) in record.fields { line += " \(key)=\(value.text)" }
            return line
        }
    }

    /// Members a field may not overwrite in a JSON line.
    private static let reserved: Set<String> = ["time", "level", "logger", "message"]

    /// A text value as is when it is one plain word, else quoted with escapes, so a line splits
    /// on spaces into its fields.
    package static func textValue(_ value: String) -> String {
        var bytes: [UInt8] = []
        LogLineBytes.appendTextValue(value, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A message with its line breaks escaped: one record is always one line.
    private static func singleLine(_ message: String) -> String {
        guard message.contains(where: { $0 == "\n" || $0 == "\r" }) else { return message }
        return message.replacingNewlines()
    }
}

/// A log field's value, typed so that a JSON line keeps numbers as numbers and absence as `null`.
///
/// Also a `CustomStringConvertible`, so swift-log metadata can carry one as it is
/// (`.stringConvertible(LogValue.null)`).
package enum LogValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation,
    CustomStringConvertible
{
    case string(String)
    /// A number, spelled as JSON spells it.
    case number(String)
    case bool(Bool)
    /// No value (text: `-`).
    case null

    package init(stringLiteral value: String) { self = .string(value) }

    package init(_ value: Int) { self = .number(String(value)) }

    /// A finite number, in the shortest form that reads back the same; `null` otherwise.
    package init(_ value: Double) {
        guard value.isFinite else { self = .null; return }
        self = .number(value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value))
    }

    /// A duration in seconds (the field's name says so: `..._s`, or a documented seconds field).
    package init(seconds duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(Double(seconds) + Double(attoseconds) * 1e-18)
    }

    package var description: String { text }

    var json: String {
        switch self {
        case .string(let text): JSONText.quoted(text)
        case .number(let text): text
        case .bool(let value): value ? "true" : "false"
        case .null: "null"
        }
    }

    var text: String {
        switch self {
        case .string(let text): LogLineFormat.textValue(text)
        case .number(let text): text
        case .bool(let value): value ? "true" : "false"
        case .null: "-"
        }
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        var out = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
