// What would crash the GraphQL library's parser, refused before it sees a text: the proxy's
// client documents, the demo origin's requests and an operator's SDL all go through this first.

/// One pass over a GraphQL text for the inputs that stop the process inside the library.
package enum GraphQLSourceCheck {
    /// What the pass noticed beside the errors it throws.
    package struct Findings: Sendable, Equatable {
        /// Some name (outside strings and comments) starts with `ReservedAlias.prefix`, the
        /// proxy's own aliases: a client may not use them.
        package var usesReservedPrefix = false
    }

    /// Rejects, before the library sees them, what would crash it: nesting deeper than
    /// `maxNestingDepth` (its parser recurses once per level), and a `\u` escape with fewer than
    /// four bytes after it before the document ends (its lexer reads those four bytes unchecked
    /// and traps past the end: `"\u12` as a whole document stopped the process). One linear pass
    /// over the bytes that skips strings, block strings and comments as the lexer does.
    @discardableResult
    package static func check(
        _ document: String, maxNestingDepth: Int = OperationAnalysis.maxNestingDepth
    ) throws(DocumentError) -> Findings {
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        let bytes = Array(document.utf8)
        var depth = 0, line = 1, lineStart = 0, index = 0
        var findings = Findings()

        func has(_ text: StaticString, at offset: Int) -> Bool {
            guard offset + text.utf8CodeUnitCount <= bytes.count else { return false }
            return (0..<text.utf8CodeUnitCount).allSatisfy { bytes[offset + $0] == text.utf8Start[$0] }
        }
        func newLine(at offset: Int) -> Int {
            // "\r\n" is one line break, as for the lexer.
            let end = bytes[offset] == carriageReturn && offset + 1 < bytes.count && bytes[offset + 1] == newline
                ? offset + 2 : offset + 1
            line += 1
            lineStart = end
            return end
        }

        while index < bytes.count {
            switch bytes[index] {
            case newline, carriageReturn:
                index = newLine(at: index)
            case UInt8(ascii: "#"):
                while index < bytes.count, bytes[index] != newline, bytes[index] != carriageReturn { index += 1 }
            case quote where has("\"\"\"", at: index):
                index += 3
                while index < bytes.count, !has("\"\"\"", at: index) {
                    if has("\\\"\"\"", at: index) {
                        index += 4
                    } else if bytes[index] == newline || bytes[index] == carriageReturn {
                        index = newLine(at: index)
                    } else {
                        index += 1
                    }
                }
                index += 3
            case quote:
                index += 1
                // An unterminated string ends at the line break; the parser reports it.
                while index < bytes.count, bytes[index] != quote, bytes[index] != newline,
                    bytes[index] != carriageReturn
                {
                    if bytes[index] == backslash, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u"),
                        bytes.count - (index + 2) < 4
                    {
                        // The library's own words for an escape that is not four hex digits, at the `u`.
                        throw DocumentError(
                            kind: .syntax, message: "Syntax Error: Invalid character escape sequence: \\u.",
                            locations: [.init(line: line, column: index + 1 - lineStart + 1)])
                    }
                    index += bytes[index] == backslash ? 2 : 1
                }
                if index < bytes.count, bytes[index] == quote { index += 1 }
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                guard depth <= maxNestingDepth else {
                    throw DocumentError(
                        kind: .syntax,
                        message: "Syntax Error: Document nests deeper than \(maxNestingDepth) levels.",
                        locations: [.init(line: line, column: index - lineStart + 1)])
                }
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth = max(depth - 1, 0)
                index += 1
            case UInt8(ascii: "_") where (index == 0 || !isNameByte(bytes[index - 1])) && has("__bw_", at: index):
                findings.usesReservedPrefix = true
                index += 5
            default:
                index += 1
            }
        }
        return findings
    }

    /// Letters, digits and `_`: the bytes of a GraphQL name.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
