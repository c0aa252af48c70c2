// Reads entity tags from an answer to a rewritten document and removes the reserved members the
// rewriter added (README "The origin side" and docs/SCHEMA.md), so the client gets exactly the fields it asked for.

/// An origin answer with the reserved members removed, and what its data names.
package struct StrippedAnswer: Sendable, Equatable {
    /// The origin's bytes without the reserved members (and the commas that separated them): what
    /// it would have sent for the client's own document, up to whitespace; the original bytes when
    /// no reserved member was present.
    package var body: [UInt8]
    /// `Type:key` and `Type` tags, unique and sorted, at most `EntityTags.limit`, as `EntityTags` makes them.
    package var tags: [String]
    /// Every type an object of `data` names, keyed or not (the per-type policy reads them).
    package var types: Set<String>
    /// The answer has a top-level `errors` member (`OriginRelay.hasErrors`).
    package var hasErrors: Bool

    package init(body: [UInt8], tags: [String], types: Set<String> = [], hasErrors: Bool = false) {
        self.body = body
        self.tags = tags
        self.types = types
        self.hasErrors = hasErrors
    }
}

/// Strips `__bw_*` members from an answer's `data` and collects the entities they name.
///
/// One pass over the bytes, without building a tree or re-encoding: the answer is validated as
/// JSON (RFC 8259 grammar, UTF-8, nesting up to `maxDepth`; duplicate keys are not looked for),
/// the reserved members' byte ranges (with the comma that separated them) are noted, and the body
/// is the answer with those ranges cut out. So what the client gets is byte for byte what the
/// origin sent, minus the reserved members. Costs less than `JSONParser.parse` of the same answer.
package enum AnswerStripper {
    /// Arrays and objects may nest this deep, as in `JSONParser`.
    package static let maxDepth = 64

    /// Nil when `answer` is not a JSON object. An object's type and key are read as
    /// `EntityCollector` reads them. Members other than `data` are kept as they are.
    package static func strip(_ answer: [UInt8]) -> StrippedAnswer? {
        answer.withUnsafeBufferPointer { bytes -> StrippedAnswer? in
            var scanner = StripScanner(bytes: bytes)
            guard scanner.scanDocument() else { return nil }
            let body: [UInt8]
            if scanner.removed.isEmpty {
                body = answer
            } else {
                var kept: [UInt8] = []
                kept.reserveCapacity(answer.count)
                var start = 0
                for range in scanner.removed {
                    kept.append(contentsOf: bytes[start..<range.lowerBound])
                    start = range.upperBound
                }
                kept.append(contentsOf: bytes[start...])
                body = kept
            }
            return StrippedAnswer(
                body: body, tags: scanner.collector.sortedTags(), types: scanner.collector.types,
                hasErrors: scanner.hasErrors)
        }
    }
}

/// The single pass of `AnswerStripper`: validates, notes reserved members, reads entities.
private struct StripScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    /// Byte ranges to cut, in increasing order, never overlapping.
    var removed: [Range<Int>] = []
    var collector = EntityCollector()
    var hasErrors = false

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func scanDocument() -> Bool {
        skipWhitespace()
        guard current == UInt8(ascii: "{"), scanObject(isTop: true, inData: false) else { return false }
        skipWhitespace()
        return index == bytes.count
    }

    private mutating func scanValue(inData: Bool) -> Bool {
        guard let byte = current else { return false }
        switch byte {
        case UInt8(ascii: "{"): return scanObject(isTop: false, inData: inData)
        case UInt8(ascii: "["): return scanArray(inData: inData)
        case UInt8(ascii: "\""): return skipString() != nil
        case UInt8(ascii: "t"): return skipLiteral("true")
        case UInt8(ascii: "f"): return skipLiteral("false")
        case UInt8(ascii: "n"): return skipLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return skipNumber()
        default: return false
        }
    }

    /// Steps over the `[` or `{` at `index`: true when `closing` follows at once (an empty
    /// container, stepped over too), false when members follow (depth counted), nil when too deep.
    private mutating func enter(closing: UInt8) -> Bool? {
        guard depth < AnswerStripper.maxDepth else { return nil }
        index += 1
        skipWhitespace()
        if current == closing {
            index += 1
            return true
        }
        depth += 1
        return false
    }

    private mutating func scanArray(inData: Bool) -> Bool {
        guard let isEmpty = enter(closing: UInt8(ascii: "]")) else { return false }
        if isEmpty { return true }
        defer { depth -= 1 }
        while true {
            skipWhitespace()
            guard scanValue(inData: inData) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return true
            default: return false
            }
        }
    }

    /// An object: in `data`, reserved members are cut and the entity is read; at the top, `data`
    /// is entered and `errors` noted.
    private mutating func scanObject(isTop: Bool, inData: Bool) -> Bool {
        guard let isEmpty = enter(closing: UInt8(ascii: "}")) else { return false }
        if isEmpty { return true }
        defer { depth -= 1 }
        var entity = EntityCollector.Object()
        var keptMembers = 0
        var previousEnd = index
        while true {
            skipWhitespace()
            let memberStart = index
            guard current == UInt8(ascii: "\""), let key = skipString() else { return false }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { return false }
            index += 1
            skipWhitespace()
            let valueStart = index
            let removedBefore = removed.count
            let name = inData || isTop ? memberName(key, isTop: isTop) : nil
            guard scanValue(inData: isTop ? name == "data" : inData) else { return false }
            let valueEnd = index
            if isTop && name == "errors" { hasErrors = true }
            if inData, let name, EntityCollector.Object.reads(name) {
                entity.read(name, scalar(valueStart..<valueEnd))
            }
            skipWhitespace()
            let separator = current
            guard separator == UInt8(ascii: ",") || separator == UInt8(ascii: "}") else { return false }
            if inData, let name, ReservedAlias.isReserved(name) {
                removed.removeSubrange(removedBefore...)  // nothing inside a cut member is cut twice
                if keptMembers > 0 {
                    removed.append(previousEnd..<valueEnd)  // the comma before it, and it
                } else {
                    removed.append(memberStart..<(separator == UInt8(ascii: ",") ? index + 1 : valueEnd))
                }
            } else {
                keptMembers += 1
            }
            previousEnd = valueEnd
            index += 1
            if separator == UInt8(ascii: "}") {
                if inData { collector.add(entity) }
                return true
            }
        }
    }

    /// A key as a string, when it can matter: `data` and `errors` at the top; `id` and names
    /// starting `__` in `data`. Other keys are never made into strings.
    private func memberName(_ key: (range: Range<Int>, hasEscapes: Bool), isTop: Bool) -> String? {
        let range = key.range
        if key.hasEscapes { return decodedString(range) }
        let name = UnsafeBufferPointer(rebasing: bytes[range])
        if isTop {
            if name.elementsEqual("data".utf8) { return "data" }
            if name.elementsEqual("errors".utf8) { return "errors" }
            return nil
        }
        if name.count == 2 { return name.elementsEqual("id".utf8) ? "id" : nil }
        guard name.count > 2, name[0] == UInt8(ascii: "_"), name[1] == UInt8(ascii: "_") else { return nil }
        return String(decoding: name, as: UTF8.self)
    }

    /// What an entity needs of the value at `range`.
    private func scalar(_ range: Range<Int>) -> EntityCollector.Scalar {
        switch bytes[range.lowerBound] {
        case UInt8(ascii: "\""):
            let content = range.lowerBound + 1..<range.upperBound - 1
            if bytes[content].contains(UInt8(ascii: "\\")) { return decodedString(content).map { .string($0) } ?? .other }
            return .string(String(decoding: UnsafeBufferPointer(rebasing: bytes[content]), as: UTF8.self))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self))
        default:
            return .other
        }
    }

    /// The string whose content (between the quotes) is `content`, escapes decoded.
    private func decodedString(_ content: Range<Int>) -> String? {
        let quoted = UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[content.lowerBound - 1..<content.upperBound + 1]))
        guard case .string(let text)? = try? JSONParser.parse(quoted) else { return nil }
        return text
    }

    // MARK: Tokens

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// A number by the RFC 8259 grammar.
    private mutating func skipNumber() -> Bool {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { return false }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, isDigit(digit) else { return false }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { return false }
            skipDigits()
        }
        return true
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    /// A string token, validated (escapes, control characters, UTF-8); its content's range.
    private mutating func skipString() -> (range: Range<Int>, hasEscapes: Bool)? {
        index += 1
        let start = index
        var hasEscapes = false
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (start..<index - 1, hasEscapes)
            case UInt8(ascii: "\\"):
                hasEscapes = true
                guard skipEscape() else { return nil }
            case 0..<0x20:
                return nil
            case 0..<0x80:
                index += 1
            default:
                guard skipUTF8Sequence() else { return nil }
            }
        }
        return nil
    }

    private mutating func skipEscape() -> Bool {
        index += 1
        guard let byte = current else { return false }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return true
        case UInt8(ascii: "u"):
            guard index + 4 <= bytes.count else { return false }
            for offset in 0..<4 {
                switch bytes[index + offset] {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"):
                    continue
                default: return false
                }
            }
            index += 4
            return true
        default:
            return false
        }
    }

    /// One multi-byte UTF-8 sequence, as `JSONParser` accepts them.
    private mutating func skipUTF8Sequence() -> Bool {
        guard let length = UTF8Sequence.length(at: index, in: bytes) else { return false }
        index += length
        return true
    }
}
