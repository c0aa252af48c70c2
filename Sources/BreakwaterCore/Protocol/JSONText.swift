// JSON string literals for the few texts Breakwater writes by hand (error bodies, log lines).

/// Minimal JSON text writing, on top of `JSONWriter`'s escaping.
package enum JSONText {
    /// `text` as a JSON string literal, quotes included (RFC 8259 escaping).
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        JSONWriter.quotedString(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
