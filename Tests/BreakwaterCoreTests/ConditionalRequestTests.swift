// If-None-Match against a stored entry's ETag (RFC 9110 section 13.1.2).

import BreakwaterCore
import Testing

struct ConditionalRequestTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var ifNoneMatch: [String]
        var etag = #""a""#
        var matches: Bool
        var testDescription: String { "\(ifNoneMatch) vs \(etag)" }
    }

    static let cases: [Case] = [
        Case(ifNoneMatch: ["*"], matches: true),
        Case(ifNoneMatch: [" * "], matches: true),
        Case(ifNoneMatch: [#""a""#], matches: true),
        Case(ifNoneMatch: [#"W/"a""#], matches: true),
        Case(ifNoneMatch: [#""a""#], etag: #"W/"a""#, matches: true),
        Case(ifNoneMatch: [#""b", "a""#], matches: true),
        Case(ifNoneMatch: [#""b""#, #""a""#], matches: true),
        Case(ifNoneMatch: [#"  "b" ,\#tW/"a"  "#], matches: true),
        Case(ifNoneMatch: [#""a,b""#], etag: #""a,b""#, matches: true),
        Case(ifNoneMatch: [#""""#], etag: #""""#, matches: true),
        Case(ifNoneMatch: [#"junk, "a""#], matches: true),
        Case(ifNoneMatch: [#""x"y, "a""#], matches: true),
        Case(ifNoneMatch: [#"abc"#], etag: "abc", matches: false),
        Case(ifNoneMatch: [#""abc""#], etag: "abc", matches: true),
        Case(ifNoneMatch: [], matches: false),
        Case(ifNoneMatch: [""], matches: false),
        Case(ifNoneMatch: [#""b""#], matches: false),
        Case(ifNoneMatch: [#""A""#], matches: false),
        Case(ifNoneMatch: ["a"], matches: false),
        Case(ifNoneMatch: [#"w/"a""#], matches: false),
        Case(ifNoneMatch: [#""b", *"#], matches: false),
        Case(ifNoneMatch: [#""a"#], matches: false),
        Case(ifNoneMatch: [#""a b""#], etag: #""a b""#, matches: false),
    ]

    @Test(arguments: cases)
    func ifNoneMatch(_ testCase: Case) {
        #expect(ConditionalRequest.ifNoneMatchMatches(testCase.ifNoneMatch, etag: testCase.etag) == testCase.matches)
    }
}
