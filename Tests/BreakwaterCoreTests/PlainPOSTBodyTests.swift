// The plain POST body's short way (`JSONParser.plainGraphQLPOST`) against the whole parse
// (`GraphQLRequestParser.parseAnyPOST`): wherever the short way answers, both read the same
// request; everywhere else the whole parse decides, so messages and verdicts cannot drift.

@testable import BreakwaterCore
import BreakwaterFixtures
import Testing

@Suite struct PlainPOSTBodyTests {
    /// The whole parse's verdict: the request, or the error response.
    private static func whole(_ body: [UInt8]) -> Result<GraphQLRequest, GraphQLErrorResponse> {
        Result { () throws(GraphQLErrorResponse) in try GraphQLRequestParser.parseAnyPOST(body: body) }
    }

    private static func parsed(_ body: [UInt8]) -> Result<GraphQLRequest, GraphQLErrorResponse> {
        Result { () throws(GraphQLErrorResponse) in try GraphQLRequestParser.parsePOST(body: body) }
    }

    /// Checks one body: the same verdict both ways, and whether the short way took it.
    private static func check(_ text: String, short: Bool, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let body = Array(text.utf8)
        #expect(parsed(body) == whole(body), "\(text)", sourceLocation: sourceLocation)
        #expect((JSONParser.plainGraphQLPOST(body) != nil) == short, "\(text)", sourceLocation: sourceLocation)
    }

    @Test func plainBodiesTakeTheShortWayAndReadTheSame() throws {
        Self.check(#"{"query":"{ a }"}"#, short: true)
        Self.check(#" { "query" : "{ a }" , "operationName" : null , "variables" : null } "#, short: true)
        Self.check(#"{"variables":{"id":"7","n":[1,2.5e3,{"x":null}]},"operationName":"A","query":"query A { a }"}"#, short: true)
        Self.check(#"{"query":"{ a(s: \"\u00e9\\n\") }","variables":{}}"#, short: true)
        Self.check("{\"query\":\"{ \u{E9}t\u{E9} }\"}", short: true)
        Self.check(#"{"query":"{ a }\u0000"}"#, short: true)  // an escaped NUL is JSON; the document parser judges it
        let request = try GraphQLRequestParser.parsePOST(
            body: Array(#"{"query":"query A { a }","operationName":"A","variables":{"id":"7"}}"#.utf8))
        #expect(request.query == "query A { a }")
        #expect(request.operationName == "A")
        #expect(request.variables == .object([(key: "id", value: .string("7"))]))
        #expect(request.isPlainPOST)
    }

    @Test func everyOtherShapeIsTheWholeParsesToDecide() {
        for text in [
            #"{}"#, #"[]"#, #""#, #"{"query":""}"#, #"{"query":null}"#, #"{"query":1}"#,
            #"{"query":"{ a }","operationName":""}"#, #"{"query":"{ a }","operationName":5}"#,
            #"{"query":"{ a }","variables":"{}"}"#, #"{"query":"{ a }","variables":[1]}"#,
            #"{"query":"{ a }","extensions":{}}"#, #"{"query":"{ a }","doc_id":"1"}"#,
            #"{"query":"{ a }","other":1}"#, #"{"q\u0075ery":"{ a }"}"#, #"{"query":"{ a }","query":"{ b }"}"#,
            #"{"query":"{ a }","variables":{"x":1,"x":2}}"#, #"{"query":"{ a }",}"#, #"{"query":"{ a }"} x"#,
            #"{"query":"{ a }""#, #"{"query":"{ a }","variables":nul}"#,
            #"{"operationName":null,"variables":null}"#, "{\"query\":\"{ a }\u{1}\"}",
        ] {
            Self.check(text, short: false)
        }
    }

    /// `variables` as a flat object of scalars is read without the container stack; every other
    /// object, and every malformed one, falls back to the whole reader with the same result.
    @Test func flatVariablesReadTheSameAsNestedOnes() throws {
        let flat = [
            #"{}"#, #"{ }"#, #"{"id":"7"}"#, #"{ "a" : -1.5e-3 , "b" : true, "c" : false, "d" : null, "e" : "\u00e9" }"#,
            #"{"\u0069d":"7","x":0}"#,
            "{" + (0..<16).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
        ]
        let other = [
            // Past the flat reader: nested, too many members; then malformed ones.
            #"{"a":{"b":1}}"#, #"{"a":[1]}"#, "{" + (0..<17).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":tru}"#, #"{"a" 1}"#,
            #"{a:1}"#, #"{"a":1"#, #"{"a":"x}"#, #"{"a":1}}"#, #"{"a":-}"#, "{\"a\":\"\u{1}\"}",
        ]
        for variables in flat + other {
            let text = #"{"query":"{ a }","variables":"# + variables + "}"
            let body = Array(text.utf8)
            #expect(Self.parsed(body) == Self.whole(body), "\(text)")
        }
        for variables in flat {
            let request = try GraphQLRequestParser.parsePOST(body: Array((#"{"query":"{ a }","variables":"# + variables + "}").utf8))
            #expect(request.variables == (try JSONParser.parse(variables)), "\(variables)")
        }
    }

    @Test func theDepthBudgetIsTheWholeParses() {
        // The body's object is one level: variables may nest 63 more, not 64.
        func body(depth: Int) -> String {
            #"{"query":"{ a }","variables":"# + String(repeating: #"{"a":"#, count: depth - 1) + "{}"
                + String(repeating: "}", count: depth - 1) + "}"
        }
        Self.check(body(depth: 63), short: true)
        Self.check(body(depth: 64), short: false)
        #expect(throws: GraphQLErrorResponse.self) { try GraphQLRequestParser.parsePOST(body: Array(body(depth: 64).utf8)) }
    }

    @Test func aLongQueryIsRefusedTheSameWay() {
        let body = Array(#"{"query":"{ abcdefghij }"}"#.utf8)
        let short = Result { () throws(GraphQLErrorResponse) in try GraphQLRequestParser.parsePOST(body: body, maxDocumentBytes: 8) }
        let whole = Result { () throws(GraphQLErrorResponse) in try GraphQLRequestParser.parseAnyPOST(body: body, maxDocumentBytes: 8) }
        #expect(short == whole)
        #expect((try? short.get()) == nil)
    }

    /// Mutated plain bodies (a byte changed, dropped or doubled) read the same both ways.
    @Test func mutatedBodiesReadTheSameBothWays() {
        let seeds = [
            #"{"query":"query A($id: ID!) { launch(id: $id) { id } }","operationName":"A","variables":{"id":"7","f":[1.5,true,null]}}"#,
            #"{"variables":{"s":"\u00e9\n"},"query":"{ a }"}"#,
        ].map { Array($0.utf8) }
        var generator = SplitMix64(seed: 0x5EED)
        let replacements: [UInt8] = Array(#"{}[]",:\ nu0159eE.-"#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        var shortTaken = 0
        for _ in 0..<4000 {
            var body = seeds[Int(generator.next() % UInt64(seeds.count))]
            let at = Int(generator.next() % UInt64(body.count))
            switch generator.next() % 3 {
            case 0: body[at] = replacements[Int(generator.next() % UInt64(replacements.count))]
            case 1: body.remove(at: at)
            default: body.insert(body[at], at: at)
            }
            #expect(Self.parsed(body) == Self.whole(body), "\(body)")
            if JSONParser.plainGraphQLPOST(body) != nil { shortTaken += 1 }
        }
        // Many mutants stay plain (a changed letter in a value): the short way was exercised.
        #expect(shortTaken > 100)
    }
}
