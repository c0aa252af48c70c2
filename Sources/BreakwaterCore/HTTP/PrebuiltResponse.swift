// A response's fixed header lines and body serialised once, so that every answer from it writes
// these bytes as they are (a cached entry's answer: no formatting, no copy, no allocation).

/// Header lines, `Content-Length`, the blank line and the body, in one array.
///
/// The engine writes a status line and the per-request header lines (Date, Age, X-Cache,
/// X-Request-Id, CORS...) in front of `bytes`; a HEAD answer stops at `bodyStart`.
package struct PrebuiltResponse: Sendable {
    /// `Name: value\r\n` lines, `Content-Length: n\r\n`, `\r\n`, then the body.
    package let bytes: [UInt8]
    /// Where the body starts in `bytes` (4 bytes, so that a cache entry holding this struct packs
    /// its own 4-byte field beside it: heads are far below 4 GiB).
    private let headCount: UInt32

    /// Where the body starts in `bytes`.
    @inline(__always)
    package var bodyStart: Int { Int(headCount) }

    /// Serialises `fields` (written in order, each `Name: value`) and `body`.
    package init(fields: [HTTPHeaderField], body: some Collection<UInt8>) {
        // Exactly the bytes written (an entry holds this array as long as it lives): the lines,
        // `Content-Length: ` with its digits, two CRLFs, the body.
        var size = 16 + Self.decimalDigits(body.count) + 4 + body.count
        for field in fields { size += field.name.utf8.count + field.value.utf8.count + 4 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        for field in fields {
            bytes.appendText(field.name)
            bytes.appendText(": ")
            bytes.appendText(field.value)
            bytes.appendText("\r\n")
        }
        bytes.appendText("Content-Length: ")
        bytes.appendDecimal(body.count)
        bytes.appendText("\r\n\r\n")
        headCount = UInt32(bytes.count)
        bytes.append(contentsOf: body)
        self.bytes = bytes
    }

    package var bodyCount: Int { bytes.count - bodyStart }

    private static func decimalDigits(_ value: Int) -> Int {
        var digits = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        return digits
    }

    /// A copy of the body (for the paths that transform it: batches, shared tiers).
    package var body: [UInt8] { Array(bytes[bodyStart...]) }

    /// The value of the first line called `name` (ASCII case-insensitive), or nil.
    package func value(of name: String) -> String? {
        var lineStart = 0
        let nameBytes = Array(name.utf8)
        while lineStart < bodyStart - 2 {
            var lineEnd = lineStart
            while lineEnd + 1 < bodyStart && !(bytes[lineEnd] == 13 && bytes[lineEnd + 1] == 10) { lineEnd += 1 }
            let colon = lineStart + nameBytes.count
            if colon + 1 < lineEnd && bytes[colon] == 58
                && zip(bytes[lineStart..<colon], nameBytes).allSatisfy({ $0.asciiLowercased == $1.asciiLowercased })
            {
                return String(decoding: bytes[(colon + 2)..<lineEnd], as: UTF8.self)
            }
            lineStart = lineEnd + 2
        }
        return nil
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 bytes with one copy from its contiguous storage (the generic
    /// `append(contentsOf: text.utf8)` walks them one by one).
    @inline(__always)
    package mutating func appendText(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            append(contentsOf: text.utf8)
        }
    }

    /// Appends the decimal digits of a non-negative `value`, without formatting functions.
    package mutating func appendDecimal(_ value: Int) {
        if value < 10 {
            append(UInt8(48 + value))
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
