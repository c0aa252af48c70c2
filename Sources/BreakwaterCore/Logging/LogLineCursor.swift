// Writes log-line pieces at a raw position inside room reserved beforehand (LogLineBuffer), with
// no capacity check per piece: literals, decimals, milliseconds, hex digests, JSON strings and
// the text format's values. Strings that need no escaping (nearly all of them) are scanned eight
// bytes at a time and copied whole; the rare one that does goes through JSONWriter.

/// The write position of a line being written; the caller reserved `LogLineCursor.bound` bytes.
package struct LogLineCursor {
    package private(set) var position: UnsafeMutablePointer<UInt8>

    package init(_ position: UnsafeMutablePointer<UInt8>) {
        self.position = position
    }

    /// Room a string value may take written by `jsonString` or `textValue` (escapes at most
    /// sextuple a byte, plus the quotes).
    @inline(__always)
    package static func bound(of text: String?, limit: Int = .max) -> Int {
        guard let text else { return 4 }
        return 6 * Swift.min(text.utf8.count, limit) + 2
    }

    /// Room any number, duration, digest or literal piece of a line may take.
    package static let pieceBound = 72

    @inline(__always)
    package mutating func byte(_ value: UInt8) {
        position.initialize(to: value)
        position += 1
    }

    @inline(__always)
    package mutating func literal(_ text: StaticString) {
        copy(UnsafeRawPointer(text.utf8Start), count: text.utf8CodeUnitCount)
    }

    @inline(__always)
    package mutating func copy(_ bytes: UnsafeRawPointer, count: Int) {
        UnsafeMutableRawPointer(position).copyMemory(from: bytes, byteCount: count)
        position += count
    }

    /// `value` in decimal.
    package mutating func decimal(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        var slot = position + digits
        position = slot
        repeat {
            slot -= 1
            slot.initialize(to: UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
    }

    /// `duration` in milliseconds rounded to three decimals, trailing zeros dropped (`0.412`,
    /// `12`, `1.5`), as `DecimalText` writes them in `/stats`.
    package mutating func milliseconds(_ duration: Duration) {
        let attoseconds = duration.attoseconds
        let negative = attoseconds < 0
        // Microseconds, rounded half away from zero: the three decimals of a millisecond count.
        // Under 9.2 s (every answer but a stuck one) in 64 bits, with no 128-bit division.
        let micros: UInt64
        if let small = Int64(exactly: attoseconds) {
            micros = (small.magnitude + 500_000_000_000) / 1_000_000_000_000
        } else {
            micros = UInt64(truncatingIfNeeded: (attoseconds.magnitude + 500_000_000_000) / 1_000_000_000_000)
        }
        if negative && micros != 0 { byte(UInt8(ascii: "-")) }
        decimal(Int(micros / 1000))
        var fraction = Int(micros % 1000)
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "."))
        byte(UInt8(ascii: "0") &+ UInt8(fraction / 100))
        fraction %= 100
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "0") &+ UInt8(fraction / 10))
        fraction %= 10
        guard fraction != 0 else { return }
        byte(UInt8(ascii: "0") &+ UInt8(fraction))
    }

    /// The 64 lower-case hex digits of `digest`, eight at a time.
    package mutating func hex(_ digest: SHA256Digest) {
        let words = digest.words
        hex(words.0)
        hex(words.1)
        hex(words.2)
        hex(words.3)
    }

    /// Sixteen hex digits of the eight bytes of `word` in memory order.
    @inline(__always)
    private mutating func hex(_ word: UInt64) {
        let word = UInt64(littleEndian: word)
        storeHex(UInt32(truncatingIfNeeded: word), at: 0)
        storeHex(UInt32(truncatingIfNeeded: word >> 32), at: 8)
        position += 16
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
    package mutating func jsonString(_ text: String, limit: Int = .max) {
        if text.utf8.count > limit { return jsonString(LogLineBytes.bounded(text, limit: limit)) }
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard Self.isJSONSafe(bytes) else { return false }
            quoted(bytes)
            return true
        }
        if copied != true { escaped(text) }
    }

    /// A text-format value: as it is when it is one plain printable-ASCII word without `"`, `\`
    /// or `=`, else JSON-quoted, so that a line splits on spaces into `key=value` fields.
    package mutating func textValue(_ text: String, limit: Int = .max) {
        if text.utf8.count > limit { return textValue(LogLineBytes.bounded(text, limit: limit)) }
        let copied: Bool? = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard Self.isPlainWord(bytes) else { return false }
            if let start = bytes.baseAddress { copy(start, count: bytes.count) }
            return true
        }
        switch copied {
        case true?: return
        case false?: escaped(text)
        case nil:
            let bytes = Array(text.utf8)
            if bytes.withUnsafeBufferPointer(Self.isPlainWord) {
                bytes.withUnsafeBytes { copy($0.baseAddress!, count: $0.count) }
            } else {
                escaped(text)
            }
        }
    }

    private mutating func quoted(_ bytes: UnsafeBufferPointer<UInt8>) {
        byte(UInt8(ascii: "\""))
        if let start = bytes.baseAddress { copy(start, count: bytes.count) }
        byte(UInt8(ascii: "\""))
    }

    /// The slow way, for a string with something to escape.
    private mutating func escaped(_ text: String) {
        var out: [UInt8] = []
        JSONWriter.quotedString(text, into: &out)
        out.withUnsafeBytes { copy($0.baseAddress!, count: $0.count) }
    }

    // MARK: - Scans, eight bytes at a time

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `word` is below `limit` (exact for `limit` <= 0x80).
    @inline(__always)
    private static func hasByte(_ word: UInt64, below limit: UInt8) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    @inline(__always)
    private static func hasByte(_ word: UInt64, equalTo value: UInt8) -> Bool {
        hasByte(word ^ (ones &* UInt64(value)), below: 1)
    }

    /// No control byte, `"` or `\`: the bytes go between quotes as they are.
    package static func isJSONSafe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        scan(bytes) { word in
            !(hasByte(word, below: 0x20) || hasByte(word, equalTo: UInt8(ascii: "\""))
                || hasByte(word, equalTo: UInt8(ascii: "\\")))
        }
    }

    /// One word of printable ASCII without `"`, `\` or `=`.
    package static func isPlainWord(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return false }
        return scan(bytes) { word in
            !(word & highs != 0 || hasByte(word, below: 0x21) || hasByte(word, equalTo: 0x7F)
                || hasByte(word, equalTo: UInt8(ascii: "\"")) || hasByte(word, equalTo: UInt8(ascii: "\\"))
                || hasByte(word, equalTo: UInt8(ascii: "=")))
        }
    }

    /// Whether every eight-byte word of `bytes` passes `word`: whole words, then the last eight
    /// bytes (overlapping, checked again), or a short string padded with a byte every check passes.
    @inline(__always)
    private static func scan(_ bytes: UnsafeBufferPointer<UInt8>, word: (UInt64) -> Bool) -> Bool {
        guard let start = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(start)
        let count = bytes.count
        guard count >= 8 else {
            var padded: UInt64 = ones &* UInt64(UInt8(ascii: "a"))
            withUnsafeMutableBytes(of: &padded) { $0.baseAddress!.copyMemory(from: raw, byteCount: count) }
            return word(padded)
        }
        var offset = 0
        while offset + 8 <= count {
            guard word(raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) else { return false }
            offset += 8
        }
        return offset == count || word(raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
    }
}
