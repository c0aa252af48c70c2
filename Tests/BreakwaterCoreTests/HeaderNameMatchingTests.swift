// Case-insensitive header names and JSON media types: the comparisons every request makes,
// with their fast exits (the exact spelling) and their slow paths (any case, parameters).

import BreakwaterCore
import Testing

struct HeaderNameMatchingTests {
    @Test func namesMatchInAnyASCIICaseOnly() {
        #expect("Content-Type".equalsIgnoringASCIICase("Content-Type"))
        #expect("content-TYPE".equalsIgnoringASCIICase("Content-Type"))
        #expect("X-Forwarded-Proto".equalsIgnoringASCIICase("x-forwarded-proto"))
        #expect("".equalsIgnoringASCIICase(""))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Typ"))
        #expect(!"Content-Type".equalsIgnoringASCIICase("Content-Tape"))
        // Bytes that differ by the case bit but are not letters stay different.
        #expect(!"a[b".equalsIgnoringASCIICase("a{b"))
        #expect(!"a@b".equalsIgnoringASCIICase("a`b"))
        // Non-ASCII bytes compare exactly.
        #expect("é-x".equalsIgnoringASCIICase("é-X"))
        #expect(!"é-x".equalsIgnoringASCIICase("É-x"))
    }

    @Test func headerLookupFindsTheFirstFieldInAnyCase() {
        let headers: HTTPHeaders = ["content-type": "a", "Content-Type": "b", "Accept": "c"]
        #expect(headers["Content-Type"] == "a")
        #expect(headers["ACCEPT"] == "c")
        #expect(headers["Accept-Encoding"] == nil)
    }

    @Test func valuesAndRemovalMatchEveryFieldOfThatNameOnly() {
        // "Vary" and "Date" have the same length: told apart by their bytes, not their length.
        var headers: HTTPHeaders = ["vary": "a", "Date": "x", "VARY": "b", "Accept": "c", "Vary": "d"]
        #expect(headers.values(of: "Vary") == ["a", "b", "d"])
        #expect(headers.values(of: "Varies").isEmpty)
        #expect(headers.values(of: "date") == ["x"])
        headers.remove("Age")
        #expect(headers.fields.count == 5)
        headers.remove("Vary")
        #expect(headers.fields.map(\.name) == ["Date", "Accept"])
    }

    @Test(arguments: [
        ("application/json", true, true),
        ("Application/JSON", true, true),
        (" application/json ; charset=utf-8", true, true),
        ("application/graphql-response+json", false, true),
        ("application/graphql-response+json; charset=utf-8", false, true),
        ("application/jsonx", false, false),
        ("text/html", false, false),
        ("", false, false),
    ])
    func jsonMediaTypes(_ value: String, _ isJSON: Bool, _ isJSONResponse: Bool) {
        #expect(MediaType.isJSON(value) == isJSON)
        #expect(MediaType.isJSONResponse(value) == isJSONResponse)
    }

    @Test func seededHashAgreesForEqualBytesWhateverTheirForm() {
        let text = String(repeating: "query Q { a b c } ", count: 9) + "é"
        let bytes = Array(text.utf8)
        let fromBytes = bytes.withUnsafeBytes { SeededByteHash.hash($0) }
        #expect(SeededByteHash.hash(text) == fromBytes)
        #expect(SeededByteHash.hash(text, kind: 1) != fromBytes)
        #expect(SeededByteHash.hash(text + " ") != fromBytes)
        // Every tail length (the bytes after the last full word) counts.
        let hashes = Set((0..<16).map { SeededByteHash.hash(String(text.utf8.prefix(100 + $0))!) })
        #expect(hashes.count == 16)
        // Long inputs go through two lanes of words: words that trade places still change it.
        let words = Array("aaaaaaaabbbbbbbbccccccccddddddddeeee".utf8)
        let traded = Array("bbbbbbbbaaaaaaaaccccccccddddddddeeee".utf8)
        #expect(words.withUnsafeBytes { SeededByteHash.hash($0) } != traded.withUnsafeBytes { SeededByteHash.hash($0) })
    }
}
