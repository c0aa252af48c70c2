// The pieces of a log line written through a ByteCursor into room reserved beforehand
// (LogLineBuffer), with no capacity check per piece: signed decimals, milliseconds, hex digests,
// JSON strings and the text format's values. Strings that need no escaping (nearly all of them)
// are scanned eight bytes at a time and copied whole; the rare one that does goes through
// JSONWriter.

extension ByteCursor {
    /// Room a string value may take written by `writeJSONString` or `writeTextValue` (escapes
    /// at most sextuple a byte, plus the quotes); 4 for an absent one (`null`).
    @inline(__always)
    package static func logBound(of text: String?, limit: Int = .max) -> Int {
        logBound(ofCount: text.map { Swift.min($0.utf8.count, limit) })
    }

    /// Room a string value of `count` UTF-8 bytes may take; 4 for an absent one.
    @inline(__always)
    package static func logBound(ofCount count: Int?) -> Int {
        guard let count else { return 4 }
        return 6 * count + 2
    }

    /// Room any number, duration or digest of a line may take.
    package static let logPieceBound = 72

    /// `value` in decimal, negative ones too.
    package mutating func writeSignedDecimal(_ value: Int) {
        guard value < 0 else { return writeDecimal(value) }
        write(UInt8(ascii: "-"))
        guard value != .min else { return writeLiteral("9223372036854775808") }
        writeDecimal(-value)
    }

    /// `duration` in milliseconds rounded to three decimals, trailing zeros dropped (`0.412`,
    /// `12`, `1.5`), as `DecimalText` writes them in `/stats`.
    package mutating func writeMilliseconds(_ duration: Duration) {
        let attoseconds = duration.attoseconds
        // Microseconds, rounded half away from zero: the three decimals of a millisecond count.
        // Under 9.2 s (every answer but a stuck one) in 64 bits, with no 128-bit division.
        let micros: UInt64
        if let small = Int64(exactly: attoseconds) {
            micros = (small.magnitude + 500_000_000_000) / 1_000_000_000_000
        } else {
            micros = UInt64(truncatingIfNeeded: (attoseconds.magnitude + 500_000_000_000) / 1_000_000_000_000)
        }
        if attoseconds < 0 && micros != 0 { write(UInt8(ascii: "-")) }
        writeDecimal(Int(micros / 1000))
        var fraction = Int(micros % 1000)
        guard fraction != 0 else { return }
        write(UInt8(ascii: "."))
        write(UInt8(ascii: "0") &+ UInt8(fraction / 100))
        fraction %= 100
        guard fraction != 0 else { return }
        write(UInt8(ascii: "0") &+ UInt8(fraction / 10))
        fraction %= 10
        guard fraction != 0 else { return }
        write(UInt8(ascii: "0") &+ UInt8(fraction))
    }

    /// `duration` in seconds rounded to three decimals, trailing zeros dropped (`12.5`, `0.041`).
    package mutating func writeSeconds(_ duration: Duration) {
        writeMilliseconds(duration / 1000)
    }

    /// The 64 lower-case hex digits of `digest`, eight at a time.
    package mutating func writeHex(_ digest: SHA256Digest) {
        let words = digest.words
        writeHex(words.0)
        writeHex(words.1)
        writeHex(words.2)
        writeHex(words.3)
    }

    /// Sixteen hex digits of the eight bytes of `word` in memory order.
    @inline(__always)
    private mutating func writeHex(_ word: UInt64) {
        let word = UInt64(littleEndian: word)
        storeHex(UInt32(truncatingIfNeeded: word), at: 0)
        storeHex(UInt32(truncatingIfNeeded: word >> 32), at: 8)
        skip(16)
    }

    /// Eight hex digits of the four bytes of `bytes` (the first in the low byte), at `position + offset`.
    @inline(__always)
    private func storeHex(_ bytes: UInt32, at offset: Int) {
        // Byte i to 16-bit lane i, then its high nibble to the lane's first byte, low to the second.
        var lanes = UInt64(bytes)
        lanes = (lanes | lanes << 16) & 0x0000_FFFF_0000_FFFF
        lanes = (lanes | lanes << 8) & 0x00FF_00FF_00FF_00FF
        let nibbles = (lanes >> 4) & 0x000F_000F_000F_000F | (lanes & 0x000F_000F_000F_000F) << 8
        // '0' + n, and 39 more ('a' - '9' - 1) where n > 9 (n + 6 reaches bit 4).
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let text = nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 39
        UnsafeMutableRawPointer(position).storeBytes(of: text.littleEndian, toByteOffset: offset, as: UInt64.self)
    }

    /// `text` as a JSON string literal, cut to `limit` bytes (at a character boundary) first.
    package mutating func writeJSONString(_ text: String, limit: Int = .max) {
        text.withUTF8Bytes { bytes in
            writeJSONString(UnsafeBufferPointer(rebasing: bytes[..<LogLineBytes.boundedCount(bytes, limit: limit)]))
        }
    }

    /// `bytes` (UTF-8) as a JSON string literal: copied between quotes when nothing needs an
    /// escape (scanned eight bytes a step), else through JSONWriter.
    package mutating func writeJSONString(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard LogLineScan.isJSONSafe(bytes) else { return writeEscaped(bytes) }
        write(UInt8(ascii: "\""))
        if let start = bytes.baseAddress { write(start, count: bytes.count) }
        write(UInt8(ascii: "\""))
    }

    /// A text-format value: as it is when it is one plain printable-ASCII word without `"`, `\`
    /// or `=`, else JSON-quoted, so that a line splits on spaces into `key=value` fields.
    package mutating func writeTextValue(_ text: String, limit: Int = .max) {
        text.withUTF8Bytes { bytes in
            writeTextValue(UnsafeBufferPointer(rebasing: bytes[..<LogLineBytes.boundedCount(bytes, limit: limit)]))
        }
    }

    /// `bytes` (UTF-8) as a text-format value.
    package mutating func writeTextValue(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard LogLineScan.isPlainWord(bytes) else { return writeEscaped(bytes) }
        if let start = bytes.baseAddress { write(start, count: bytes.count) }
    }

    /// The slow way, for a string with something to escape.
    private mutating func writeEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        var out: [UInt8] = []
        JSONWriter.quotedString(String(decoding: bytes, as: UTF8.self), into: &out)
        out.withUnsafeBytes { write($0.baseAddress!, count: $0.count) }
    }
}
