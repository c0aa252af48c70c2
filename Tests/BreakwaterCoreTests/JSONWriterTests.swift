// The JSON writer: compact output in the given order, minimal escaping, and the canonical form
// that makes equivalent variables give one cache key (README "The response cache").

import BreakwaterCore
import Testing

struct JSONWriterTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    static func canonical(_ json: String) throws -> String { text(JSONWriter.canonical(try JSONParser.parse(json))) }

    static func quoted(_ string: String) -> String {
        var out: [UInt8] = []
        JSONWriter.quotedString(string, into: &out)
        return text(out)
    }

    // MARK: Compact output

    static let encoded: [(JSONValue, String)] = [
        (.null, "null"),
        (.bool(true), "true"),
        (.bool(false), "false"),
        (.number("-0"), "-0"),
        (.number("1.0"), "1.0"),
        (.number("12345678901234567890123"), "12345678901234567890123"),
        (.number("1e400"), "1e400"),
        (.string(""), #""""#),
        (.string("a/b é 😀 \u{2028} \u{7F}"), "\"a/b é 😀 \u{2028} \u{7F}\""),
        (.array([]), "[]"),
        (.object([]), "{}"),
        (.array([.number("1"), .string("x"), .null, .array([.bool(false)])]), #"[1,"x",null,[false]]"#),
        (
            .object([(key: "b", value: .number("1")), (key: "a", value: .object([(key: "q\"k", value: .array([]))]))]),
            #"{"b":1,"a":{"q\"k":[]}}"#
        ),
    ]

    @Test(arguments: encoded)
    func writesCompactJSONInTheGivenOrder(_ value: JSONValue, _ expected: String) {
        #expect(Self.text(JSONWriter.encode(value)) == expected)
    }

    @Test func appendsToAnExistingBuffer() {
        var out = Array("prefix:".utf8)
        JSONWriter.write(.array([.number("2")]), into: &out)
        JSONWriter.writeCanonical(.object([(key: "b", value: .null), (key: "a", value: .null)]), into: &out)
        #expect(Self.text(out) == #"prefix:[2]{"a":null,"b":null}"#)
    }

    // MARK: Escaping

    static let escapes: [(String, String)] = [
        ("\"", #""\"""#),
        ("\\", #""\\""#),
        ("\n", #""\n""#),
        ("\r", #""\r""#),
        ("\t", #""\t""#),
        ("\u{8}", #""\b""#),
        ("\u{C}", #""\f""#),
        ("\u{0}", #""\u0000""#),
        ("\u{1}", #""\u0001""#),
        ("\u{B}", #""\u000b""#),
        ("\u{1B}", #""\u001b""#),
        ("\u{1F}", #""\u001f""#),
        ("/", #""/""#),
        ("say \"hi\"\n\tto C:\\", #""say \"hi\"\n\tto C:\\""#),
        ("é中😀", "\"é中😀\""),
    ]

    @Test(arguments: escapes)
    func escapesOnlyWhatJSONRequires(_ string: String, _ expected: String) {
        #expect(Self.quoted(string) == expected)
        #expect(Self.text(JSONWriter.encode(.string(string))) == expected)
    }

    @Test func everyControlCharacterIsEscapedAndReadsBack() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).map { Unicode.Scalar(UInt8($0)) }))
        let written = JSONWriter.encode(.string(controls))
        #expect(!written.contains { $0 < 0x20 })
        #expect(try JSONParser.parse(written) == .string(controls))
    }

    // MARK: Round trip

    @Test func parseWriteParseGivesTheSameValue() throws {
        let value = try JSONParser.parse(JSONParserTests.sampleDocument)
        let written = JSONWriter.encode(value)
        #expect(try JSONParser.parse(written) == value)
        // Compact output is a fixed point: writing it again changes nothing.
        #expect(JSONWriter.encode(try JSONParser.parse(written)) == written)
        #expect(!written.contains(UInt8(ascii: "\n")))
    }

    // MARK: Canonical form

    static let equivalentDocuments: [(String, String, String)] = [
        (#"{"a":1,"b":2}"#, #"{ "b":2, "a":1 }"#, #"{"a":1,"b":2}"#),
        (
            #"{"page":{"size":20,"after":null},"id":"92","tags":[{"z":1,"y":2}]}"#,
            """
            {
              "tags" : [ { "y" : 2 , "z" : 1 } ],
              "id" : "92",
              "page" : { "after" : null, "size" : 20 }
            }
            """,
            #"{"id":"92","page":{"after":null,"size":20},"tags":[{"y":2,"z":1}]}"#
        ),
        (
            #"{"x":{"c":{"f":1,"e":2},"b":[]},"a":0}"#,
            #"{"a":0,"x":{"b":[],"c":{"e":2,"f":1}}}"#,
            #"{"a":0,"x":{"b":[],"c":{"e":2,"f":1}}}"#
        ),
        (#"{"s":"\u00e9\/"}"#, #"{"s":"é/"}"#, #"{"s":"é/"}"#),
    ]

    @Test(arguments: equivalentDocuments)
    func equivalentDocumentsHaveOneCanonicalForm(_ first: String, _ second: String, _ expected: String) throws {
        #expect(try Self.canonical(first) == expected)
        #expect(try Self.canonical(second) == expected)
    }

    @Test func canonicalKeepsArrayOrder() throws {
        #expect(try Self.canonical("[3, 1, 2]") == "[3,1,2]")
        #expect(try Self.canonical(#"[{"b":1,"a":2},{"a":3}]"#) == #"[{"a":2,"b":1},{"a":3}]"#)
        #expect(try Self.canonical("[3,1,2]") != Self.canonical("[1,2,3]"))
    }

    @Test func canonicalKeepsNumbersAsWritten() throws {
        #expect(try Self.canonical(#"{"n":1.0}"#) == #"{"n":1.0}"#)
        #expect(try Self.canonical(#"{"n":1.0}"#) != Self.canonical(#"{"n":1}"#))
        #expect(try Self.canonical("[1e2, 100, -0, 0]") == "[1e2,100,-0,0]")
    }

    @Test func canonicalSortsKeysByTheirUTF8Bytes() throws {
        // UTF-16 order would put U+1F600 (a surrogate pair, 0xD83D…) before U+FF5E; byte order does not.
        let document = #"{"😀":1,"～":2,"é":3,"z":4,"aa":5,"a":6,"B":7,"":8}"#
        #expect(try Self.canonical(document) == #"{"":8,"B":7,"a":6,"aa":5,"z":4,"é":3,"～":2,"😀":1}"#)
    }

    @Test func encodeKeepsTheGivenOrderWhereCanonicalSorts() throws {
        let value = try JSONParser.parse(#"{"b":1,"a":2}"#)
        #expect(Self.text(JSONWriter.encode(value)) == #"{"b":1,"a":2}"#)
        #expect(Self.text(JSONWriter.canonical(value)) == #"{"a":2,"b":1}"#)
    }
}
