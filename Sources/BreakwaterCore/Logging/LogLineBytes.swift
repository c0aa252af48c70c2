// The byte-level pieces of a log line, appended to a reusable buffer with no String built per
// field: decimal integers, milliseconds with three decimals, hex digests, JSON strings and the
// text format's `key=value` values (plain when one word, else JSON-quoted).

/// Appends log-line fields to a byte buffer.
package enum LogLineBytes {
    /// `value` in decimal.
    package static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buffer in
            var start = buffer.count
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: buffer[start...])
        }
    }

    /// `duration` in milliseconds rounded to three decimals, trailing zeros dropped (`0.412`,
    /// `12`, `1.5`), as `DecimalText` writes them in `/stats`.
    package static func appendMilliseconds(_ duration: Duration, to out: inout [UInt8]) {
        let (seconds, attoseconds) = duration.components
        let negative = seconds < 0 || attoseconds < 0
        // Microseconds, rounded half away from zero: the three decimals of a millisecond count.
        let micros = seconds.magnitude * 1_000_000 + (attoseconds.magnitude + 500_000_000_000) / 1_000_000_000_000
        if negative && micros != 0 { out.append(UInt8(ascii: "-")) }
        appendDecimal(Int(micros / 1000), to: &out)
        var fraction = Int(micros % 1000)
        guard fraction != 0 else { return }
        var width = 3
        while fraction % 10 == 0 {
            fraction /= 10
            width -= 1
        }
        out.append(UInt8(ascii: "."))
        if width == 3 && fraction < 100 { out.append(UInt8(ascii: "0")) }
        if width >= 2 && fraction < 10 { out.append(UInt8(ascii: "0")) }
        appendDecimal(fraction, to: &out)
    }

    /// The 64 lower-case hex digits of `digest`.
    package static func appendHex(_ digest: SHA256Digest, to out: inout [UInt8]) {
        digest.withUnsafeBytes { bytes in
            for byte in bytes {
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            }
        }
    }

    /// `text` as a JSON string literal, cut to `limit` bytes (at a character boundary) first.
    package static func appendQuoted(_ text: String, limit: Int = .max, to out: inout [UInt8]) {
        if text.utf8.count <= limit {
            JSONWriter.quotedString(text, into: &out)
        } else {
            JSONWriter.quotedString(bounded(text, limit: limit), into: &out)
        }
    }

    /// A text-format value: as it is when it is one plain printable-ASCII word without `"`, `\`
    /// or `=`, else JSON-quoted, so that a line splits on spaces into `key=value` fields.
    package static func appendTextValue(_ text: String, limit: Int = .max, to out: inout [UInt8]) {
        let text = text.utf8.count <= limit ? text : bounded(text, limit: limit)
        let utf8 = text.utf8
        let isPlain = !utf8.isEmpty && utf8.allSatisfy {
            $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "=")
        }
        if isPlain {
            out.append(contentsOf: utf8)
        } else {
            JSONWriter.quotedString(text, into: &out)
        }
    }

    /// `text` cut to at most `limit` UTF-8 bytes, never inside a character's bytes.
    private static func bounded(_ text: String, limit: Int) -> String {
        let utf8 = text.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: limit)
        // Step back over continuation bytes (10xxxxxx) so the cut falls between characters.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(text[..<end])
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
