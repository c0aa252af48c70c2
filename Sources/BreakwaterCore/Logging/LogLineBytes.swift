// Log-line pieces appended to a `[UInt8]` (record lines, tests), written by the same
// ByteCursor pieces that write the access log, so both agree byte for byte.

/// Appends log-line pieces to a byte array.
package enum LogLineBytes {
    /// `value` in decimal.
    package static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        append(to: &out, room: ByteCursor.logPieceBound) { $0.writeSignedDecimal(value) }
    }

    /// `duration` in milliseconds rounded to three decimals, trailing zeros dropped.
    package static func appendMilliseconds(_ duration: Duration, to out: inout [UInt8]) {
        append(to: &out, room: ByteCursor.logPieceBound) { $0.writeMilliseconds(duration) }
    }

    /// A text-format value: as it is when one plain word, else JSON-quoted.
    package static func appendTextValue(_ text: String, limit: Int = .max, to out: inout [UInt8]) {
        append(to: &out, room: ByteCursor.logBound(of: text, limit: limit)) { $0.writeTextValue(text, limit: limit) }
    }

    /// How many of `bytes` (UTF-8) to keep for at most `limit`: all of them when they fit, else
    /// a cut never inside a character's bytes.
    @inline(__always)
    package static func boundedCount(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int) -> Int {
        guard bytes.count > limit else { return bytes.count }
        var end = limit
        // Step back over continuation bytes (10xxxxxx) so the cut falls between characters.
        while end > 0, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }

    private static func append(to out: inout [UInt8], room: Int, _ write: (inout ByteCursor) -> Void) {
        var buffer = LogLineBuffer(capacity: room)
        var line = ByteCursor(buffer.reserve(room))
        write(&line)
        buffer.commit(upTo: line.position)
        buffer.withUnsafeBytes { out.append(contentsOf: $0) }
    }
}
