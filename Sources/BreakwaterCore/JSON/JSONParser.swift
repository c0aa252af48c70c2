// A strict RFC 8259 JSON parser over raw bytes. It runs on the request path for every POST body
// and every GET `variables`/`extensions` parameter, so it avoids Foundation, validates in one
// pass, and keeps its own stack instead of recursing (hostile nesting cannot overflow ours).

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Parses JSON text into a `JSONValue`, rejecting everything RFC 8259 does not allow.
///
/// Beyond the grammar it rejects two things the RFC leaves open: duplicate keys in one object
/// (compared byte for byte, RFC 8259 §8.3), because the cache key and the origin could otherwise
/// read different values for one name; and nesting deeper than `maxDepth`. Numbers are validated
/// and kept as their exact text, so `12345678901234567890123` and `1e400` survive unchanged.
package enum JSONParser {
    /// Parses one JSON value, with optional surrounding whitespace, from `bytes`.
    ///
    /// `maxDepth` bounds how many arrays and objects may nest; a larger value is a promise the
    /// caller makes, since code walking the result (`==`, the writer, deinit) recurses.
    package static func parse(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth)
        return try reader.parseDocument()
    }

    /// Parses one JSON value from `bytes`.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBytes { result(of: $0, maxDepth: maxDepth) }.get()
    }

    /// Parses one JSON value from the UTF-8 of `text`.
    package static func parse(_ text: String, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { result(of: UnsafeRawBufferPointer($0), maxDepth: maxDepth) }.get()
    }

    /// Parses one JSON value from the UTF-8 of `text`, e.g. a decoded query-string parameter.
    package static func parse(_ text: Substring, maxDepth: Int = 64) throws(JSONError) -> JSONValue {
        var text = text
        return try text.withUTF8 { result(of: UnsafeRawBufferPointer($0), maxDepth: maxDepth) }.get()
    }

    /// The members of a GraphQL POST body of the plain shape, read without building the body's
    /// object: an object holding a non-empty `query` string, and at most an `operationName`
    /// (a non-empty string or null) and `variables` (an object or null), each once, their names
    /// written without escapes. Nil for anything else, valid or not: the caller then parses the
    /// body with `parse` (every message and every other shape stays that path's). Where this
    /// answers, `parse` yields the same members (`variables` is read by the same reader, with the
    /// same depth budget under the body's object).
    package static func plainGraphQLPOST(_ bytes: [UInt8], maxDepth: Int = 64)
        -> (query: String, operationName: String?, variables: JSONValue?)?
    {
        guard maxDepth > 1 else { return nil }
        return bytes.withUnsafeBytes { buffer in
            // The body's object is not on the reader's stack: its members get one level less.
            var reader = Reader(bytes: buffer, maxDepth: maxDepth - 1)
            return reader.readPlainGraphQLPOST()
        }
    }

    /// Carries a typed error out of the standard library's untyped `rethrows` closures.
    private static func result(of bytes: UnsafeRawBufferPointer, maxDepth: Int) -> Result<JSONValue, JSONError> {
        Result { () throws(JSONError) in try parse(bytes, maxDepth: maxDepth) }
    }
}

// MARK: - Reader

/// An open array or object whose elements are still being read.
private struct Frame {
    let isObject: Bool
    /// Where this container's elements begin on the reader's shared stack.
    let start: Int
    /// Built once an object grows past a few members, so duplicate checks stop scanning linearly.
    var keyIndex: Set<ByteKey>?
}

/// A key compared and hashed by its UTF-8 bytes: `String`'s own `==` treats canonically
/// equivalent spellings ("é" and "e\u{301}") as equal, but JSON names are distinct byte strings.
private struct ByteKey: Hashable {
    let key: String
    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { same(lhs.key, rhs.key) }
    /// Lengths first (O(1) for native strings): an object's keys mostly differ in length.
    static func same(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) }
    func hash(into hasher: inout Hasher) {
        for byte in key.utf8 { hasher.combine(byte) }
    }
}

/// One parse: a cursor over the input plus the stacks of unfinished containers.
///
/// Elements of all open containers share one stack of members (an array's with empty keys; an
/// object's key goes on with a placeholder value that its value then replaces); a container that
/// closes takes its slice off the top. Each finished array or object thus allocates once, and the
/// two stacks once each, sized up front (growing them step by step cost more than the parse).
private struct Reader {
    let bytes: UnsafeRawBufferPointer
    let maxDepth: Int
    var index = 0
    var frames: [Frame] = []
    var members: [(key: String, value: JSONValue)] = []
    /// Reused by every string that holds escapes; strings without them are copied straight out.
    var scratch: [UInt8] = []

    /// Objects up to this size are checked for duplicate keys by scanning; larger ones by hashing.
    static let linearKeyScanLimit = 16

    init(bytes: UnsafeRawBufferPointer, maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        if bytes.isEmpty { throw JSONError(message: "empty input, expected a JSON value", offset: 0) }
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw unexpected(expecting: "end of input after the JSON value") }
        return value
    }

    /// Reads one complete value, containers included, without recursion.
    mutating func parseValue() throws(JSONError) -> JSONValue {
        readingValue: while true {
            skipWhitespace()
            guard let byte = current else { throw unexpected(expecting: "a JSON value") }
            var value: JSONValue
            switch byte {
            case .openBrace, .openBracket:
                guard frames.count < maxDepth else {
                    throw JSONError(message: "nesting deeper than \(maxDepth) levels", offset: index)
                }
                let isObject = byte == .openBrace
                index += 1
                skipWhitespace()
                if current == (isObject ? .closeBrace : .closeBracket) {
                    index += 1
                    value = isObject ? .object([]) : .array([])
                } else {
                    if frames.capacity == 0 {
                        frames.reserveCapacity(8)
                        members.reserveCapacity(16)
                    }
                    frames.append(Frame(isObject: isObject, start: members.count))
                    if isObject { try readKey() }
                    continue readingValue
                }
            default: value = try parseScalar(byte)
            }

            // Hand the finished value to the innermost container and close every container that ends here.
            while !frames.isEmpty {
                let isObject = frames[frames.count - 1].isObject
                let start = frames[frames.count - 1].start
                if isObject {
                    members[members.count - 1].value = value
                } else {
                    members.append((key: "", value: value))
                }
                skipWhitespace()
                let close: UInt8 = isObject ? .closeBrace : .closeBracket
                if current == .comma {
                    let comma = index
                    index += 1
                    skipWhitespace()
                    if current == close {
                        let message = "trailing comma before \(describe(close)) is not allowed"
                        throw JSONError(message: message, offset: comma)
                    }
                    if isObject { try readKey() }
                    continue readingValue
                }
                guard current == close else {
                    throw unexpected(
                        expecting: isObject ? "',' or '}' after object member" : "',' or ']' after array element")
                }
                index += 1
                frames.removeLast()
                if start == 0 && isObject {
                    // The whole stack is this object (the document's, usually): taken as it is.
                    // An array made from the full slice would share the stack's buffer, and the
                    // pops below would then copy the stack.
                    value = .object(members)
                    members = []
                } else {
                    value = isObject ? .object(Array(members[start...])) : .array(members[start...].map(\.value))
                    // One by one: `removeLast(_:)` goes through `replaceSubrange`, several times dearer here.
                    while members.count > start { members.removeLast() }
                }
            }
            return value
        }
    }

    /// `JSONParser.plainGraphQLPOST`'s reading: nil at the first byte off its shape.
    mutating func readPlainGraphQLPOST() -> (query: String, operationName: String?, variables: JSONValue?)? {
        skipWhitespace()
        guard current == .openBrace else { return nil }
        index += 1
        var query: String?
        var operationName: String?
        var variables: JSONValue?
        var seen: PlainMember = []
        while true {
            skipWhitespace()
            guard let member = readPlainMemberName(), !seen.contains(member) else { return nil }
            seen.insert(member)
            skipWhitespace()
            guard current == .colon else { return nil }
            index += 1
            skipWhitespace()
            switch member {
            case .query:
                guard current == .quote, let text = try? parseString(), !text.isEmpty else { return nil }
                query = text
            case .operationName:
                if current == .quote {
                    guard let name = try? parseString(), !name.isEmpty else { return nil }
                    operationName = name
                } else {
                    guard (try? expectLiteral("null")) != nil else { return nil }
                }
            default:
                if current == .openBrace {
                    guard let value = readFlatObject() ?? (try? parseValue()) else { return nil }
                    variables = value
                } else {
                    guard (try? expectLiteral("null")) != nil else { return nil }
                }
            }
            skipWhitespace()
            guard current == .comma else { break }
            index += 1
        }
        guard current == .closeBrace else { return nil }
        index += 1
        skipWhitespace()
        guard index == bytes.count, let query else { return nil }
        return (query, operationName, variables)
    }

    /// A flat object of at most `linearKeyScanLimit` scalar members (the usual `variables`; its
    /// duplicate check is the same linear scan), read straight into its members without the
    /// container stack; nil, with the position restored, at anything else (a nested container, a
    /// duplicate key, a syntax error), which the caller then reads with `parseValue`.
    mutating func readFlatObject() -> JSONValue? {
        let start = index
        guard current == .openBrace, frames.count < maxDepth else { return nil }
        index += 1
        skipWhitespace()
        var flat: [(key: String, value: JSONValue)] = []
        if current == .closeBrace {
            index += 1
            return .object(flat)
        }
        flat.reserveCapacity(4)
        while flat.count < Self.linearKeyScanLimit {
            skipWhitespace()
            guard current == .quote, let key = try? parseString(),
                !flat.contains(where: { ByteKey.same($0.key, key) })
            else { break }
            skipWhitespace()
            guard current == .colon else { break }
            index += 1
            skipWhitespace()
            guard let value = readScalar() else { break }
            flat.append((key: key, value: value))
            skipWhitespace()
            if current == .comma {
                index += 1
                continue
            }
            guard current == .closeBrace else { break }
            index += 1
            return .object(flat)
        }
        index = start
        return nil
    }

    /// A string, number, `true`, `false` or `null`; nil at anything else or a malformed one.
    private mutating func readScalar() -> JSONValue? {
        guard let byte = current, byte != .openBrace, byte != .openBracket else { return nil }
        return try? parseScalar(byte)
    }

    /// The string, number or literal that starts with `byte`, the current one.
    mutating func parseScalar(_ byte: UInt8) throws(JSONError) -> JSONValue {
        switch byte {
        case .quote: return .string(try parseString())
        case .minus, .digit0 ... .digit9: return .number(try parseNumber())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        default: throw unexpected(expecting: "a JSON value")
        }
    }

    /// The plain shape's members.
    struct PlainMember: OptionSet {
        let rawValue: UInt8
        static let query = PlainMember(rawValue: 1)
        static let operationName = PlainMember(rawValue: 2)
        static let variables = PlainMember(rawValue: 4)
    }

    /// Reads a quoted member name and says which plain member it is; nil for any other name
    /// (escaped spellings included) or no name at all.
    mutating func readPlainMemberName() -> PlainMember? {
        guard current == .quote, let base = bytes.baseAddress else { return nil }
        // The name and its closing quote, compared in place: `"query"`, `"variables"` or
        // `"operationName"` followed by `"`, so an escape or a longer name never matches.
        func matches(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            return index + 1 + count < bytes.count && base.load(fromByteOffset: index + 1 + count, as: UInt8.self) == .quote
                && memcmp(base + index + 1, literal.utf8Start, count) == 0
        }
        let member: PlainMember? =
            if matches("query") { .query } else if matches("variables") { .variables } else if matches("operationName") {
                .operationName
            } else { nil }
        switch member {
        case .query?: index += 7
        case .variables?: index += 11
        case .operationName?: index += 15
        default: break
        }
        return member
    }

    /// Reads `"key":` for the innermost open object, rejecting a key that object already holds.
    mutating func readKey() throws(JSONError) {
        guard current == .quote else { throw unexpected(expecting: "a string in double quotes as object key") }
        let start = index
        let key = try parseString()
        let top = frames.count - 1
        let memberStart = frames[top].start
        if frames[top].keyIndex == nil, members.count - memberStart >= Self.linearKeyScanLimit {
            frames[top].keyIndex = Set(members[memberStart...].map { ByteKey(key: $0.key) })
        }
        let isDuplicate =
            if frames[top].keyIndex != nil {
                !frames[top].keyIndex!.insert(ByteKey(key: key)).inserted
            } else {
                members[memberStart...].contains { ByteKey.same($0.key, key) }
            }
        if isDuplicate { throw JSONError(message: "duplicate key \(quotedForMessage(key)) in object", offset: start) }
        // The placeholder value is replaced once the member's value is read.
        members.append((key: key, value: .null))
        skipWhitespace()
        guard current == .colon else { throw unexpected(expecting: "':' after object key") }
        index += 1
    }

    // MARK: Tokens

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case .space, .tab, .lineFeed, .carriageReturn: index += 1
            default: return
            }
        }
    }

    /// Reads a string token, validating UTF-8 and decoding escapes.
    mutating func parseString() throws(JSONError) -> String {
        index += 1  // the opening quote
        var runStart = index
        var hasEscapes = false
        while index < bytes.count {
            skipPlainASCII()
            guard index < bytes.count else { break }
            let byte = bytes[index]
            switch byte {
            case .quote:
                let string: String
                if hasEscapes {
                    scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                    string = String(decoding: scratch, as: UTF8.self)
                } else {
                    string = makeString(bytes[runStart..<index])
                }
                index += 1
                return string
            case .backslash:
                if !hasEscapes { scratch.removeAll(keepingCapacity: true) }
                hasEscapes = true
                scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                try parseEscape()
                runStart = index
            case 0..<0x20:
                throw JSONError(
                    message: "control character U+\(hex(byte, digits: 4)) must be escaped in a string", offset: index)
            case 0..<0x80:
                index += 1
            default:
                try skipUTF8Sequence()
            }
        }
        throw JSONError(message: "unterminated string", offset: bytes.count)
    }

    /// Steps over string bytes eight at a time while none of them is a quote, a backslash, a
    /// control character or a non-ASCII byte, then to the first such byte (the byte loop takes
    /// those one by one).
    @inline(__always)
    mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress else { return }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            // A zero byte in `quotes`/`backslashes`, a byte below 0x20, or a high bit: stop.
            let special =
                ((quotes &- ones) & ~quotes) | ((backslashes &- ones) & ~backslashes) | (word &- ones &* 0x20) | word
            if special & highs != 0 {
                // The lowest flagged byte is the first special one (a borrow only flags bytes
                // after it): step to it, so the byte loop starts right there.
                index += (special & highs).trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    /// Decodes the escape at `index` (a backslash) into `scratch`.
    mutating func parseEscape() throws(JSONError) {
        let start = index
        index += 1
        guard let byte = current else { throw JSONError(message: "unterminated string", offset: bytes.count) }
        index += 1
        switch byte {
        case .quote, .backslash, .slash: scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(.lineFeed)
        case UInt8(ascii: "r"): scratch.append(.carriageReturn)
        case UInt8(ascii: "t"): scratch.append(.tab)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(escapeStart: start)
            if 0xDC00...0xDFFF ~= scalar { throw unpairedSurrogate(at: start, isHigh: false) }
            if 0xD800...0xDBFF ~= scalar {
                // UTF-16 in disguise: only a following \uDC00–\uDFFF completes the character.
                guard current == .backslash, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw unpairedSurrogate(at: start, isHigh: true)
                }
                let lowStart = index
                index += 2
                let low = try readHex4(escapeStart: lowStart)
                guard 0xDC00...0xDFFF ~= low else { throw unpairedSurrogate(at: start, isHigh: true) }
                scalar = 0x10000 + (scalar - 0xD800) << 10 + (low - 0xDC00)
            }
            appendUTF8(scalar)
        default:
            throw JSONError(message: "invalid escape '\\\(describeBare(byte))' in string", offset: start)
        }
    }

    /// Reads the four hex digits of a `\u` escape that began at `escapeStart`.
    mutating func readHex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let digit: UInt8? =
                switch current {
                case let byte? where .digit0 ... .digit9 ~= byte: byte - .digit0
                case let byte? where UInt8(ascii: "a")...UInt8(ascii: "f") ~= byte: byte - UInt8(ascii: "a") + 10
                case let byte? where UInt8(ascii: "A")...UInt8(ascii: "F") ~= byte: byte - UInt8(ascii: "A") + 10
                default: nil
                }
            guard let digit else {
                throw JSONError(message: "expected four hex digits after '\\u'", offset: escapeStart)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0..<0x800:
            scratch.append(0xC0 | UInt8(scalar >> 6))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        case 0..<0x10000:
            scratch.append(0xE0 | UInt8(scalar >> 12))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        default:
            scratch.append(0xF0 | UInt8(scalar >> 18))
            scratch.append(0x80 | UInt8(scalar >> 12 & 0x3F))
            scratch.append(0x80 | UInt8(scalar >> 6 & 0x3F))
            scratch.append(0x80 | UInt8(scalar & 0x3F))
        }
    }

    /// Steps over one multi-byte UTF-8 sequence, rejecting overlong forms, encoded surrogates,
    /// code points above U+10FFFF and truncated sequences (RFC 3629, table 3-7 of Unicode).
    mutating func skipUTF8Sequence() throws(JSONError) {
        guard let length = UTF8Sequence.length(at: index, in: bytes) else {
            throw JSONError(message: "invalid UTF-8 byte 0x\(hex(bytes[index], digits: 2)) in string", offset: index)
        }
        index += length
    }

    /// Reads a number token by the RFC 8259 grammar and returns its text.
    mutating func parseNumber() throws(JSONError) -> String {
        let start = index
        if current == .minus { index += 1 }
        switch current {
        case .digit0?:
            index += 1
            if let next = current, .digit0 ... .digit9 ~= next {
                throw JSONError(message: "leading zeros are not allowed in numbers", offset: index - 1)
            }
        case let digit? where .digit1 ... .digit9 ~= digit:
            skipDigits()
        default:
            throw unexpected(expecting: "a digit after '-'")
        }
        if current == .period {
            index += 1
            try requireDigits(after: "the decimal point")
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == .plus || current == .minus { index += 1 }
            try requireDigits(after: "the exponent marker")
        }
        return makeString(bytes[start..<index])
    }

    mutating func requireDigits(after what: String) throws(JSONError) {
        guard let byte = current, .digit0 ... .digit9 ~= byte else {
            throw unexpected(expecting: "a digit after \(what)")
        }
        skipDigits()
    }

    mutating func skipDigits() {
        while let byte = current, .digit0 ... .digit9 ~= byte { index += 1 }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONError) {
        let matches = literal.withUTF8Buffer { text in
            index + text.count <= bytes.count && text.indices.allSatisfy { bytes[index + $0] == text[$0] }
        }
        guard matches else { throw JSONError(message: "invalid literal, expected '\(literal)'", offset: index) }
        index += literal.utf8CodeUnitCount
    }

    // MARK: Messages

    /// An error at the cursor saying what was expected and what was found instead.
    func unexpected(expecting expected: String) -> JSONError {
        guard let byte = current else {
            return JSONError(message: "unexpected end of input, expected \(expected)", offset: index)
        }
        return JSONError(message: "expected \(expected), found \(describe(byte))", offset: index)
    }

    /// An error for the unpaired surrogate escape at `offset`, quoting the `\uXXXX` as written.
    func unpairedSurrogate(at offset: Int, isHigh: Bool) -> JSONError {
        let escape = makeString(bytes[offset..<min(offset + 6, bytes.count)])
        return JSONError(message: "unpaired \(isHigh ? "high" : "low") surrogate \(escape) in string", offset: offset)
    }

    /// Copies validated UTF-8 out of the input without a second validation pass.
    func makeString(_ slice: Slice<UnsafeRawBufferPointer>) -> String {
        let run = UnsafeRawBufferPointer(rebasing: slice)
        return String(unsafeUninitializedCapacity: run.count) { buffer in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: run)
            return run.count
        }
    }
}

// MARK: - Helpers

/// A byte as it should appear in a message: quoted if printable ASCII, else in hex.
private func describe(_ byte: UInt8) -> String {
    0x21..<0x7F ~= byte ? "'\(describeBare(byte))'" : "byte 0x\(hex(byte, digits: 2))"
}

private func describeBare(_ byte: UInt8) -> String {
    0x21..<0x7F ~= byte ? String(UnicodeScalar(byte)) : "x\(hex(byte, digits: 2))"
}

private func hex(_ value: UInt8, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}

/// A key for an error message: JSON-quoted so odd characters stay visible, and cut short so a
/// hostile megabyte-long key cannot bloat the 400 body.
private func quotedForMessage(_ key: String) -> String {
    let limit = 64
    let shown = key.unicodeScalars.count > limit ? String(key.unicodeScalars.prefix(limit)) + "…" : key
    var out: [UInt8] = []
    JSONWriter.quotedString(shown, into: &out)
    return String(decoding: out, as: UTF8.self)
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let period = UInt8(ascii: ".")
    fileprivate static let digit0 = UInt8(ascii: "0")
    fileprivate static let digit1 = UInt8(ascii: "1")
    fileprivate static let digit9 = UInt8(ascii: "9")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let lineFeed = UInt8(ascii: "\n")
    fileprivate static let carriageReturn = UInt8(ascii: "\r")
}
