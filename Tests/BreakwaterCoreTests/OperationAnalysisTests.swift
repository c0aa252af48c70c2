// Operation analysis of GraphQL documents: which operations a document holds, which one a request
// selects, and the graphql-js errors (with locations) for documents that cannot be served.

import BreakwaterCore
import Foundation
import Testing

struct OperationAnalysisTests {
    typealias Operation = OperationAnalysis.Operation

    @Test(arguments: [
        ("{ launches { id } }", [Operation(name: nil, kind: .query)]),
        ("query Launches { launches { id } }", [Operation(name: "Launches", kind: .query)]),
        ("query { launches { id } }", [Operation(name: nil, kind: .query)]),
        ("mutation Book($id: ID!) { book(id: $id) { ok } }", [Operation(name: "Book", kind: .mutation)]),
        ("subscription OnBooked { booked { id } }", [Operation(name: "OnBooked", kind: .subscription)]),
        (
            "query A { a } mutation B { b } fragment F on T { x } subscription C { c }",
            [Operation(name: "A", kind: .query), Operation(name: "B", kind: .mutation),
             Operation(name: "C", kind: .subscription)]
        ),
        (
            """
            # A comment with { and [ that is not a selection.
            query Search($text: String = \"\"\"
              block { string ( with \\\""" an escaped quote
            \"\"\") {
              search(text: $text, note: "a } in a string # not a comment") { ...Hit } # trailing {
            }
            fragment Hit on Result { id }
            """,
            [Operation(name: "Search", kind: .query)]
        ),
    ])
    func listsOperationsInDocumentOrder(document: String, operations: [Operation]) throws {
        #expect(try OperationAnalysis(document: document).operations == operations)
    }

    @Test func collectsFragmentNames() throws {
        let analysis = try OperationAnalysis(document: "{ ...A } fragment A on T { a ...B } fragment B on T { b }")
        #expect(analysis.fragmentNames == ["A", "B"])
    }

    static let several = "query A { a } mutation B { b } { c }"

    @Test(arguments: [
        ("{ a }", nil, Result<Operation, DocumentError>.success(Operation(name: nil, kind: .query))),
        ("query A { a }", nil, .success(Operation(name: "A", kind: .query))),
        ("query A { a }", "A", .success(Operation(name: "A", kind: .query))),
        (several, "A", .success(Operation(name: "A", kind: .query))),
        (several, "B", .success(Operation(name: "B", kind: .mutation))),
        (
            several, nil,
            .failure(DocumentError(
                kind: .ambiguousOperation,
                message: "Must provide operation name if query contains multiple operations."))
        ),
        ("query A { a }", "X", .failure(DocumentError(kind: .unknownOperation, message: "Unknown operation named \"X\"."))),
        ("{ a }", "A", .failure(DocumentError(kind: .unknownOperation, message: "Unknown operation named \"A\"."))),
    ])
    func selectsTheOperationLikeGraphQLJS(
        document: String, operationName: String?, expected: Result<Operation, DocumentError>
    ) throws {
        let analysis = try OperationAnalysis(document: document)
        #expect(Result { () throws(DocumentError) in try analysis.select(operationName: operationName) } == expected)
    }

    @Test func fragmentsOnlyIsNoOperation() {
        #expect(throws: DocumentError(kind: .noOperation, message: "Must provide an operation.")) {
            try OperationAnalysis(document: "fragment F on T { a }")
        }
    }

    @Test(arguments: [
        ("{ launches(", "Syntax Error: Expected Name, found <EOF>.", 1, 12),
        ("", "Syntax Error: Unexpected <EOF>.", 1, 1),
        ("{ a }\n}", "Syntax Error: Unexpected }.", 2, 1),
        ("query Q {\n  a(x: \"open)\n}", "Syntax Error: Unterminated string.", 2, 14),
        ("query Q {\r\n  a(x: \"\"\"open)\r\n}", "Syntax Error: Unterminated blockstring.", 3, 2),
        ("{ a(x: 01) }", "Syntax Error: Invalid number, unexpected digit after 0: 1.", 1, 9),
        ("qurey Q { a }", "Syntax Error: Unexpected Name \"qurey\".", 1, 1),
        ("{ a } ?", "Syntax Error: Unexpected character ?.", 1, 7),
        ("query Q { ... }", "Syntax Error: Expected {, found }.", 1, 15),
        // The library's message would quote the whole document here.
        ("{ a(x: \"\\u12\") }", "Syntax Error: Invalid character escape sequence: \\u.", 1, 10),
    ])
    func syntaxErrorsCarryGraphQLJSWordingAndLocation(document: String, message: String, line: Int, column: Int) {
        #expect(throws: DocumentError(kind: .syntax, message: message, locations: [SourceLocation(line: line, column: column)])) {
            try OperationAnalysis(document: document)
        }
    }

    /// A `\u` escape with fewer than four bytes before the end trapped inside the library's lexer
    /// (found by `make ci-sanitizers`' fuzzing): refused beforehand, with the error the library
    /// gives the same escape when four bytes follow.
    @Test(arguments: [
        "\"\\u", "\"\\u12", "\"\\u12\"", "\"\u{E9}\\u1\n}", "{ a(x: \"\\u12", "query Q {\n  a(x: \"\u{20AC}\\u1\"",
        "{ a { ...V } nt{\"Doub\u{FFFD} mle&q\\u}",
    ])
    func aTruncatedUnicodeEscapeIsASyntaxError(document: String) {
        let padded = document + "zzzz"
        let expected = #expect(throws: DocumentError.self) { try OperationAnalysis(document: padded) }
        #expect(expected?.message == "Syntax Error: Invalid character escape sequence: \\u.")
        #expect(throws: expected!) { try OperationAnalysis(document: document) }
    }

    @Test func parsesAVeryLargeDocument() throws {
        let fields = (0..<10_000).map { "field\($0)(arg: \($0)) { id }" }.joined(separator: "\n")
        let analysis = try OperationAnalysis(document: "query Big {\n\(fields)\n}")
        #expect(analysis.operations == [Operation(name: "Big", kind: .query)])
    }

    // MARK: - Nesting

    static let bound = OperationAnalysis.maxNestingDepth

    /// `depth` levels: `open` repeated, then `inner` inside the last level, then `close` repeated.
    static func nested(_ depth: Int, open: String = "{ a ", inner: String = "", close: String = " }") -> String {
        String(repeating: open, count: depth) + inner + String(repeating: close, count: depth)
    }

    @Test(arguments: [
        nested(bound),
        "{ a(x: " + nested(bound - 2, open: "[", close: "]") + ") }",
        "{ a(x: " + nested(bound - 2, open: "{ k: ", inner: "1", close: "}") + ") }",
        nested(bound - 1, open: "{ ... on T ", inner: "{ a }", close: "}"),
        // Braces inside strings, block strings and comments are not nesting.
        "{ a(x: \"\(String(repeating: "{", count: 1000))\", y: \"\"\"\(String(repeating: "[", count: 1000))\"\"\") }",
        "# \(String(repeating: "(", count: 1000))\n{ a }",
    ])
    func parsesNestingUpToTheBound(document: String) throws {
        #expect(try OperationAnalysis(document: document).operations.count == 1)
    }

    @Test(arguments: [bound + 1, 200, 100_000])
    func rejectsDeeperNestingBeforeParsing(depth: Int) {
        // Line 1's brace is the first level, so line 2's brace number `bound` crosses it.
        let document = "query Deep {\n" + Self.nested(depth)
        let error = DocumentError(
            kind: .syntax, message: "Syntax Error: Document nests deeper than \(Self.bound) levels.",
            locations: [SourceLocation(line: 2, column: 4 * (Self.bound - 1) + 1)])
        #expect(throws: error) { try OperationAnalysis(document: document) }
    }

    /// At the bound, the parser's deepest recursions fit the 1 MiB stack of an event-loop thread.
    @Test(arguments: [
        nested(bound - 1, open: "{ ... on T ", inner: "{ a }", close: "}"),
        "{ a(x: " + nested(bound - 2, open: "{ k: ", inner: "1", close: "}") + ") }",
        "{ a(x: " + nested(bound - 2, open: "[", close: "]") + ") }",
    ])
    func nestingAtTheBoundFitsAnEventLoopStack(document: String) {
        final class Outcome: @unchecked Sendable { var parsed = false }  // the semaphore orders the accesses
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            outcome.parsed = (try? OperationAnalysis(document: document)) != nil
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        done.wait()
        #expect(outcome.parsed)
    }
}
