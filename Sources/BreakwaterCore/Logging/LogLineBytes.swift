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

    /// The 64 lower-case hex digits of `digest`, made on the stack and appended at once.
    package static func appendHex(_ digest: SHA256Digest, to out: inout [UInt8]) {
        var text: (SIMD32<UInt8>, SIMD32<UInt8>) = (.zero, .zero)
        withUnsafeMutableBytes(of: &text) { hex in
            digest.withUnsafeBytes { bytes in
                for (index, byte) in bytes.enumerated() {
                    hex[2 * index] = hexDigit(byte >> 4)
                    hex[2 * index + 1] = hexDigit(byte & 0x0F)
                }
            }
            out.append(contentsOf: hex)
        }
    }

    /// The bytes of a literal.
    package static func appendStatic(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The UTF-8 bytes of `text`, copied at once (a native string's bytes are contiguous).
    package static func appendUTF8(_ text: String, to out: inout [UInt8]) {
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { out.append(contentsOf: $0) }
        if copied == nil { out.append(contentsOf: text.utf8) }
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
        // A native string's bytes are contiguous: scanned and copied without per-byte calls.
        let appendedPlain: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard isPlainWord(bytes) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        switch appendedPlain {
        case true?: return
        case false?: JSONWriter.quotedString(text, into: &out)
        case nil:
            let bytes = Array(text.utf8)
            if bytes.withUnsafeBufferPointer(isPlainWord) {
                out.append(contentsOf: bytes)
            } else {
                JSONWriter.quotedString(text, into: &out)
            }
        }
    }

    /// One word of printable ASCII without `"`, `\` or `=`.
    private static func isPlainWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        for byte in bytes {
            guard byte > 0x20, byte < 0x7F, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"),
                byte != UInt8(ascii: "=")
            else { return false }
        }
        return true
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
