// Writes `JSONValue`s as compact JSON bytes: in their given order for bodies sent upstream, and
// in canonical form for cache keys (README "The response cache"), where `{"a":1,"b":2}` ≡ `{ "b":2, "a":1 }`.

/// Compact JSON serialisation, plain or canonical, straight into byte buffers.
///
/// The writer recurses once per nesting level; values from `JSONParser` are bounded by its
/// `maxDepth`. Numbers are written as their stored text, which the writer trusts to be valid.
package enum JSONWriter {
    /// The compact JSON text of `value`, object members in their given order.
    package static func encode(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        write(value, into: &out)
        return out
    }

    /// Appends the compact JSON text of `value`, object members in their given order.
    package static func write(_ value: JSONValue, into out: inout [UInt8]) {
        write(value, sortingKeys: false, into: &out)
    }

    /// The canonical JSON text of `value`: compact, every object's members sorted by key.
    ///
    /// Keys are ordered by their UTF-8 bytes (that is, by code point), so the order depends on
    /// neither locale nor Unicode normalisation. Numbers stay exactly as written: `1`, `1.0` and
    /// `1e0` give different canonical forms. That is intended: the origin receives the client's
    /// text and may treat them differently (an `Int` argument rejects `1.0`), so they must not
    /// share a cache entry.
    package static func canonical(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        // Room for the usual variables at once: growing from empty reallocated about five times.
        out.reserveCapacity(64)
        writeCanonical(value, into: &out)
        return out
    }

    /// Appends the canonical JSON text of `value` (see `canonical(_:)`).
    package static func writeCanonical(_ value: JSONValue, into out: inout [UInt8]) {
        write(value, sortingKeys: true, into: &out)
    }

    /// Appends `text` as a JSON string literal, escaping only what JSON requires.
    ///
    /// `"` and `\` get a backslash; control characters get their short form (`\n`, `\r`, `\t`,
    /// `\b`, `\f`) or `\u00XX`; everything else, `/` and non-ASCII included, is copied as UTF-8.
    package static func quotedString(_ text: String, into out: inout [UInt8]) {
        out.append(.quote)
        let copied: Void? = text.utf8.withContiguousStorageIfAvailable { appendEscaped($0, into: &out) }
        if copied == nil {
            Array(text.utf8).withUnsafeBufferPointer { appendEscaped($0, into: &out) }
        }
        out.append(.quote)
    }

    private static func write(_ value: JSONValue, sortingKeys: Bool, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): out.append(contentsOf: text.utf8)
        case .string(let text): quotedString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                write(element, sortingKeys: sortingKeys, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            // Most variables objects have one member, or arrive sorted: nothing to sort then.
            let ordered = sortingKeys && !isSorted(members) ? members.sorted { precedes($0.key, $1.key) } : members
            out.append(UInt8(ascii: "{"))
            for (position, member) in ordered.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                quotedString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(member.value, sortingKeys: sortingKeys, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whether `members`' keys are in canonical order already.
    private static func isSorted(_ members: [(key: String, value: JSONValue)]) -> Bool {
        guard members.count > 1 else { return true }
        for index in 1..<members.count where !precedes(members[index - 1].key, members[index].key) { return false }
        return true
    }

    /// Canonical key order: by UTF-8 bytes.
    private static func precedes(_ first: String, _ second: String) -> Bool {
        first.utf8.lexicographicallyPrecedes(second.utf8)
    }

    /// Copies `utf8` into `out` in runs, breaking a run only where a byte needs escaping.
    private static func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        var runStart = 0
        for position in utf8.indices {
            let byte = utf8[position]
            guard byte < 0x20 || byte == .quote || byte == .backslash else { continue }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<position]))
            out.append(.backslash)
            switch byte {
            case .quote, .backslash: out.append(byte)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.append(contentsOf: "u00".utf8)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
            runStart = position + 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? .digit0 + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let digit0 = UInt8(ascii: "0")
}
