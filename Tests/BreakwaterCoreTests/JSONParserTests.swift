// The JSON parser against RFC 8259: what it accepts, what it rejects and at which byte, and that
// no input (truncated, invalid UTF-8, hostile nesting, random bytes) can crash it.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct JSONParserTests {
    /// The error parsing `text` throws, or nil when it parses.
    static func parseError(_ text: String, maxDepth: Int = 64) -> JSONError? {
        do {
            _ = try JSONParser.parse(text, maxDepth: maxDepth)
            return nil
        } catch {
            return error
        }
    }

    static func parseError(bytes: [UInt8]) -> JSONError? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// A document using every kind of token, nested; shared with the writer's tests.
    static let sampleDocument = #"""
        {"query":"query Q($id: ID!) { launch(id: $id) { id } }","operationName":"Q",
         "variables":{"id":"92","page":{"size":20,"after":null},"ratio":-1.5e-3,"big":12345678901234567890123,
           "flags":[true,false,null,[],{}],"text":"tab\tquote\" slash\/ \u00e9 \ud83d\ude00 中"},
         "extensions":{"persistedQuery":{"version":1,
           "sha256Hash":"ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"}}}
        """#

    // MARK: Accepted forms

    static let accepted: [(String, JSONValue)] = [
        ("null", .null),
        ("true", .bool(true)),
        ("false", .bool(false)),
        (" \t\r\n 1 \n\t\r", .number("1")),
        ("0", .number("0")),
        ("-0", .number("-0")),
        ("-12.5e+3", .number("-12.5e+3")),
        ("1E-7", .number("1E-7")),
        ("0.000100", .number("0.000100")),
        ("1e400", .number("1e400")),
        ("12345678901234567890123", .number("12345678901234567890123")),
        ("-9007199254740993", .number("-9007199254740993")),
        (#""""#, .string("")),
        (#""plain text""#, .string("plain text")),
        (#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{8}\u{C}\n\r\t")),
        (#""\u00e9""#, .string("é")),
        (#""\u00E9\u4E2D""#, .string("é中")),
        (#""\ud83d\ude00""#, .string("😀")),
        (#""\uD83D\uDE00!""#, .string("😀!")),
        (#""\u0000""#, .string("\u{0}")),
        (#""a\u2028b""#, .string("a\u{2028}b")),
        ("\"é😀中\u{7F}\"", .string("é😀中\u{7F}")),
        ("[]", .array([])),
        ("{}", .object([])),
        ("[ \n]", .array([])),
        ("{ \t}", .object([])),
        (
            #"[1,"a",null,true,[],{}]"#,
            .array([.number("1"), .string("a"), .null, .bool(true), .array([]), .object([])])
        ),
        (
            #" { "b" : [ 1 , { "c" : null } ] , "a" : {} } "#,
            .object([
                (key: "b", value: .array([.number("1"), .object([(key: "c", value: .null)])])),
                (key: "a", value: .object([])),
            ])
        ),
        (
            #"{"a":{"a":{"a":1}}}"#,
            .object([(key: "a", value: .object([(key: "a", value: .object([(key: "a", value: .number("1"))]))]))])
        ),
    ]

    @Test(arguments: accepted)
    func acceptsValidDocument(_ text: String, _ expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func keepsMemberOrderAsWritten() throws {
        let value = try JSONParser.parse(#"{"z":1,"a":2,"m":3}"#)
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.map(\.key) == ["z", "a", "m"])
    }

    /// Open containers share one stack of members: an inner object's keys must neither clash
    /// with its parent's nor hide a real duplicate that follows it.
    @Test func nestedContainersKeepTheirOwnKeys() throws {
        let value = try JSONParser.parse(#"{"a":[{"a":1,"b":[2,{"b":3}]},{"a":4}],"b":{"a":null},"c":[]}"#)
        #expect(
            value
                == .object([
                    (
                        key: "a",
                        value: .array([
                            .object([
                                (key: "a", value: .number("1")),
                                (key: "b", value: .array([.number("2"), .object([(key: "b", value: .number("3"))])])),
                            ]),
                            .object([(key: "a", value: .number("4"))]),
                        ])
                    ),
                    (key: "b", value: .object([(key: "a", value: .null)])),
                    (key: "c", value: .array([])),
                ]))
        #expect(Self.parseError(#"{"a":[{"a":1}],"b":{"a":2},"a":3}"#)?.message.contains("duplicate key") == true)
        let wide = (0..<20).map { "\"k\($0)\":{\"k\($0)\":[{\"k0\":1}]}" }.joined(separator: ",")
        #expect(throws: Never.self) { try JSONParser.parse("{\(wide)}") }
        #expect(Self.parseError("{\(wide),\"k19\":0}")?.message.contains("duplicate key") == true)
    }

    @Test func everyInputFormGivesTheSameValue() throws {
        let text = "  [1, {\"k\": \"v\"}]  "
        let expected = try JSONParser.parse(text)
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
        #expect(try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0) } == expected)
        let embedded = "xx" + text + "yy"
        #expect(try JSONParser.parse(embedded.dropFirst(2).dropLast(2)) == expected)
    }

    // MARK: Rejected forms, with the byte each error points at

    static let rejected: [(String, Int, String)] = [
        ("", 0, "empty input, expected a JSON value"),
        ("   ", 3, "unexpected end of input, expected a JSON value"),
        ("[1,2,]", 4, "trailing comma before ']' is not allowed"),
        (#"{"a":1 ,}"#, 7, "trailing comma before '}' is not allowed"),
        ("[1 2]", 3, "expected ',' or ']' after array element, found '2'"),
        ("[1,,2]", 3, "expected a JSON value, found ','"),
        (#"{"a" 1}"#, 5, "expected ':' after object key, found '1'"),
        (#"{"a":1 "b":2}"#, 7, #"expected ',' or '}' after object member, found '"'"#),
        ("{a:1}", 1, "expected a string in double quotes as object key, found 'a'"),
        ("{,}", 1, "expected a string in double quotes as object key, found ','"),
        (#"{"a":}"#, 5, "expected a JSON value, found '}'"),
        ("// comment\n1", 0, "expected a JSON value, found '/'"),
        ("/* comment */ 1", 0, "expected a JSON value, found '/'"),
        ("[1] // comment", 4, "expected end of input after the JSON value, found '/'"),
        ("1 2", 2, "expected end of input after the JSON value, found '2'"),
        ("{}}", 2, "expected end of input after the JSON value, found '}'"),
        ("NaN", 0, "expected a JSON value, found 'N'"),
        ("Infinity", 0, "expected a JSON value, found 'I'"),
        ("-Infinity", 1, "expected a digit after '-', found 'I'"),
        ("True", 0, "expected a JSON value, found 'T'"),
        ("tru", 0, "invalid literal, expected 'true'"),
        ("nul", 0, "invalid literal, expected 'null'"),
        ("[falsy]", 1, "invalid literal, expected 'false'"),
        ("01", 0, "leading zeros are not allowed in numbers"),
        ("-012", 1, "leading zeros are not allowed in numbers"),
        ("+1", 0, "expected a JSON value, found '+'"),
        (".5", 0, "expected a JSON value, found '.'"),
        ("1.", 2, "unexpected end of input, expected a digit after the decimal point"),
        ("1.e5", 2, "expected a digit after the decimal point, found 'e'"),
        ("1e", 2, "unexpected end of input, expected a digit after the exponent marker"),
        ("1e+", 3, "unexpected end of input, expected a digit after the exponent marker"),
        ("-", 1, "unexpected end of input, expected a digit after '-'"),
        ("0x1F", 1, "expected end of input after the JSON value, found 'x'"),
        ("\"abc", 4, "unterminated string"),
        ("\"a\nb\"", 2, "control character U+000A must be escaped in a string"),
        ("\"a\tb\"", 2, "control character U+0009 must be escaped in a string"),
        ("\"\u{0}\"", 1, "control character U+0000 must be escaped in a string"),
        ("\"\u{1F}\"", 1, "control character U+001F must be escaped in a string"),
        (#""\x""#, 1, #"invalid escape '\x' in string"#),
        (#""\'""#, 1, #"invalid escape '\'' in string"#),
        (#""\u12""#, 1, #"expected four hex digits after '\u'"#),
        (#""\uGHIJ""#, 1, #"expected four hex digits after '\u'"#),
        (#""\ud83d""#, 1, #"unpaired high surrogate \ud83d in string"#),
        (#""\ud83dx""#, 1, #"unpaired high surrogate \ud83d in string"#),
        (#""\ud83d\u0041""#, 1, #"unpaired high surrogate \ud83d in string"#),
        (#""\ud83d\ud83d""#, 1, #"unpaired high surrogate \ud83d in string"#),
        (#""ok\ude00""#, 3, #"unpaired low surrogate \ude00 in string"#),
        ("[", 1, "unexpected end of input, expected a JSON value"),
        (#"{"a":1"#, 6, "unexpected end of input, expected ',' or '}' after object member"),
        ("\u{FEFF}1", 0, "expected a JSON value, found byte 0xEF"),
        ("\u{0C}1", 0, "expected a JSON value, found byte 0x0C"),
        ("\u{A0}1", 0, "expected a JSON value, found byte 0xC2"),
    ]

    @Test(arguments: rejected)
    func rejectsInvalidDocumentAtTheOffendingByte(_ text: String, _ offset: Int, _ message: String) {
        #expect(Self.parseError(text) == JSONError(message: message, offset: offset))
    }

    @Test func describesErrorsWithTheirByteOffset() {
        #expect(Self.parseError(#"{"operationName" "Q"}"#)?.description
            == #"JSON error at byte 17: expected ':' after object key, found '"'"#)
        #expect(JSONError(message: "expected ':' after object key", offset: 12).description
            == "JSON error at byte 12: expected ':' after object key")
    }

    // MARK: Duplicate keys

    static let duplicates: [(String, Int, String)] = [
        (#"{"a":1,"a":2}"#, 7, #"duplicate key "a" in object"#),
        (#"{"x":{"a":1,"b":2,"a":3}}"#, 18, #"duplicate key "a" in object"#),
        (#"[{"ok":1},{"id":1,"id":2}]"#, 18, #"duplicate key "id" in object"#),
        (#"{"v":[[{"deep":{"k":1,"k":1}}]]}"#, 22, #"duplicate key "k" in object"#),
        (#"{"\u0061":1,"a":2}"#, 12, #"duplicate key "a" in object"#),
        (#"{"":1,"":2}"#, 6, #"duplicate key "" in object"#),
        (#"{"line\nbreak":1,"line\nbreak":2}"#, 17, #"duplicate key "line\nbreak" in object"#),
    ]

    @Test(arguments: duplicates)
    func rejectsDuplicateKeysAtAnyDepth(_ text: String, _ offset: Int, _ message: String) {
        #expect(Self.parseError(text) == JSONError(message: message, offset: offset))
    }

    @Test func detectsDuplicatesInLargeObjects() throws {
        let members = (0..<100).map { #""key\#($0)":\#($0)"# }
        let valid = "{" + members.joined(separator: ",") + "}"
        guard case .object(let parsed) = try JSONParser.parse(valid) else { Issue.record("not an object"); return }
        #expect(parsed.map(\.key) == (0..<100).map { "key\($0)" })

        let duplicated = "{" + members.joined(separator: ",") + #","key42":0}"#
        let expected = JSONError(message: #"duplicate key "key42" in object"#, offset: valid.utf8.count)
        #expect(Self.parseError(duplicated) == expected)
    }

    @Test func keysThatDifferInBytesAreDistinctEvenIfCanonicallyEquivalent() throws {
        // "é" precomposed and "e" + combining acute: equal as Swift Strings, distinct JSON names.
        guard case .object(let members) = try JSONParser.parse(#"{"\u00e9":1,"e\u0301":2}"#) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map { Array($0.key.utf8) } == [[0xC3, 0xA9], [0x65, 0xCC, 0x81]])
    }

    @Test func truncatesHugeDuplicateKeysInTheMessage() throws {
        let key = String(repeating: "k", count: 10_000)
        let error = try #require(Self.parseError(#"{"\#(key)":1,"\#(key)":2}"#))
        #expect(error.message == "duplicate key \"\(String(repeating: "k", count: 64))…\" in object")
    }

    // MARK: Depth limit

    static func nestedArrays(_ depth: Int) -> String {
        String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        #expect(Self.parseError(Self.nestedArrays(64)) == nil)
        let objects = String(repeating: #"{"a":"#, count: 63) + "[1]" + String(repeating: "}", count: 63)
        #expect(Self.parseError(objects) == nil)
        #expect(Self.parseError("[[1]]", maxDepth: 2) == nil)
        #expect(Self.parseError("1", maxDepth: 0) == nil)
    }

    @Test func rejectsNestingBeyondTheLimit() {
        let tooDeep = JSONError(message: "nesting deeper than 64 levels", offset: 64)
        #expect(Self.parseError(Self.nestedArrays(65)) == tooDeep)
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(Self.parseError(objects) == JSONError(message: "nesting deeper than 64 levels", offset: 5 * 64))
        #expect(Self.parseError("[[[]]]", maxDepth: 2) == JSONError(message: "nesting deeper than 2 levels", offset: 2))
        #expect(Self.parseError("{}", maxDepth: 0) == JSONError(message: "nesting deeper than 0 levels", offset: 0))
    }

    @Test func survivesHostileNesting() {
        #expect(Self.parseError(String(repeating: "[", count: 1_000_000))?.offset == 64)
        #expect(Self.parseError(String(repeating: #"{"a":["#, count: 200_000))?.offset == 6 * 32)
    }

    // MARK: UTF-8

    static let validUTF8Boundaries: [[UInt8]] = [
        [0xDF, 0xBF],  // U+07FF
        [0xE0, 0xA0, 0x80],  // U+0800
        [0xED, 0x9F, 0xBF],  // U+D7FF, the last scalar before the surrogates
        [0xEE, 0x80, 0x80],  // U+E000, the first after them
        [0xEF, 0xBF, 0xBF],  // U+FFFF
        [0xF0, 0x90, 0x80, 0x80],  // U+10000
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF
    ]

    @Test(arguments: validUTF8Boundaries)
    func acceptsWellFormedUTF8AtEveryBoundary(_ sequence: [UInt8]) throws {
        let value = try JSONParser.parse([0x22] + sequence + [0x22])
        #expect(value.stringValue.map { Array($0.utf8) } == sequence)
    }

    static let invalidUTF8: [(bytes: [UInt8], offset: Int, message: String)] = [
        ([0x22, 0xFF, 0x22], 1, "invalid UTF-8 byte 0xFF in string"),
        ([0x22, 0x61, 0x80, 0x22], 2, "invalid UTF-8 byte 0x80 in string"),  // lone continuation byte
        ([0x22, 0xC0, 0x80, 0x22], 1, "invalid UTF-8 byte 0xC0 in string"),  // overlong NUL
        ([0x22, 0xC1, 0xBF, 0x22], 1, "invalid UTF-8 byte 0xC1 in string"),  // overlong ASCII
        ([0x22, 0xE0, 0x80, 0x80, 0x22], 1, "invalid UTF-8 byte 0xE0 in string"),  // overlong 3-byte
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 1, "invalid UTF-8 byte 0xED in string"),  // surrogate U+D800
        ([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], 1, "invalid UTF-8 byte 0xF0 in string"),  // overlong 4-byte
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1, "invalid UTF-8 byte 0xF4 in string"),  // above U+10FFFF
        ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 1, "invalid UTF-8 byte 0xF5 in string"),
        ([0x22, 0xE2, 0x82, 0x22], 1, "invalid UTF-8 byte 0xE2 in string"),  // truncated before the quote
        ([0x22, 0xC3], 1, "invalid UTF-8 byte 0xC3 in string"),  // truncated at the end
        ([0x7B, 0x22, 0xFE, 0x22, 0x3A, 0x31, 0x7D], 2, "invalid UTF-8 byte 0xFE in string"),  // in a key
        ([0xFF], 0, "expected a JSON value, found byte 0xFF"),
        ([0x5B, 0x31, 0x2C, 0xC3, 0xA9, 0x5D], 3, "expected a JSON value, found byte 0xC3"),
    ]

    @Test(arguments: invalidUTF8)
    func rejectsInvalidUTF8(_ bytes: [UInt8], _ offset: Int, _ message: String) {
        #expect(Self.parseError(bytes: bytes) == JSONError(message: message, offset: offset))
    }

    // MARK: Robustness

    @Test func everyPrefixOfADocumentFailsCleanlyAndTheWholeSucceeds() throws {
        let bytes = Array(Self.sampleDocument.utf8)
        for length in 0..<bytes.count {
            let error = Self.parseError(bytes: Array(bytes[..<length]))
            #expect(error != nil, "prefix of \(length) bytes parsed")
            #expect((0...length).contains(error?.offset ?? -1), "\(String(describing: error)) for \(length) bytes")
        }
        let value = try JSONParser.parse(bytes)
        #expect(value["variables"]?["big"] == .number("12345678901234567890123"))
        #expect(value["variables"]?["text"] == .string("tab\tquote\" slash/ é 😀 中"))
    }

    /// Random byte strings, half of them drawn from JSON's own alphabet so that they get past the
    /// first byte, and mutated copies of a real document: none may crash, and every error must
    /// point inside the input; what does parse must survive a round trip through the writer.
    @Test func randomInputNeverCrashesTheParser() throws {
        var random = SplitMix64(seed: 0x8259)
        let alphabet = Array(#"{}[]",:0123456789-+.eE tfnrul\"u"#.utf8) + [0x0A, 0xC3, 0xA9, 0xED, 0xA0, 0xFF]
        let document = Array(Self.sampleDocument.utf8)
        var parsed = 0
        for round in 0..<2000 {
            var input: [UInt8]
            switch round % 3 {
            case 0:
                input = (0..<random.next(below: 48)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                input = (0..<random.next(below: 48)).map { _ in alphabet[random.next(below: alphabet.count)] }
            default:
                input = document
                for _ in 0...random.next(below: 3) {
                    input[random.next(below: input.count)] = alphabet[random.next(below: alphabet.count)]
                }
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(input)
            } catch {
                #expect((0...input.count).contains(error.offset), "offset \(error.offset) in \(input)")
                continue
            }
            parsed += 1
            #expect(try JSONParser.parse(JSONWriter.encode(value)) == value)
        }
        #expect(parsed > 0)  // the generator does reach valid documents
    }

    /// Strings are scanned eight bytes a step: a quote, escape, control byte or UTF-8 sequence at
    /// every offset of a long run is still seen where it is.
    @Test func everySpecialByteIsSeenAtEveryOffsetOfAWord() throws {
        for offset in 0..<24 {
            let before = String(repeating: "a", count: offset)
            let after = String(repeating: "b", count: 23 - offset)
            #expect(try JSONParser.parse("\"\(before)\(after)\"") == .string(before + after))
            #expect(try JSONParser.parse("\"\(before)\\\"\(after)\"") == .string(before + "\"" + after))
            #expect(try JSONParser.parse("\"\(before)\\n\(after)\"") == .string(before + "\n" + after))
            #expect(try JSONParser.parse("\"\(before)é€\(after)\"") == .string(before + "é€" + after))
            #expect(try JSONParser.parse("[\"\(before)\",\"\(after)\"]") == .array([.string(before), .string(after)]))
            #expect(Self.parseError("\"\(before)\u{01}\(after)\"")?.offset == offset + 1)
            #expect(Self.parseError("\"\(before)\u{1F}\(after)\"")?.offset == offset + 1)
            #expect(Self.parseError("\"\(before)\(after)") != nil, "unterminated")
            var invalid = Array("\"\(before)\(after)\"".utf8)
            invalid[offset + 1] = 0xFF
            #expect(throws: JSONError.self) { try JSONParser.parse(invalid) }
        }
    }
}
