// One log line in either of `logging.format`'s forms (SPEC section 6): `text` for people
// ("2026-11-23T16:04:05.123Z warning breakwater: origin failed reason=refused"), `json` for
// collectors (one object per line, the same fields as members).

/// Renders log records as single lines.
package enum LogLineFormat {
    /// A record: when, how severe, which logger, what, and its key/value details in order.
    package struct Record: Sendable {
        package var time: LogTimestamp
        package var level: String
        package var label: String
        package var message: String
        package var fields: [(String, String)]

        package init(time: LogTimestamp, level: String, label: String, message: String, fields: [(String, String)]) {
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
                line += ",\(JSONText.quoted(key)):\(JSONText.quoted(value))"
            }
            return line + "}"
        case .text:
            var line = "\(record.time.rfc3339) \(record.level) \(record.label): \(singleLine(record.message))"
            for (key, value) in record.fields { line += " \(key)=\(textValue(value))" }
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
