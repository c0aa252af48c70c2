// FieldText answers the usual pieces of a head with literals: each must be exactly the string
// decoding would have made, for the known spellings, their near misses and unknown pieces.

@testable import BreakwaterServer
import Testing

@Suite struct FieldTextTests {
    private static func made(_ text: String) -> String {
        let bytes = Array(("xx" + text + "yy").utf8)
        return bytes.withUnsafeBufferPointer { FieldText.string($0, 2..<(2 + text.utf8.count)) }
    }

    @Test(arguments: [
        "*/*", "Host", "host", "Date", "Accept", "accept", "Server", "/graphql", "User-Agent", "user-agent",
        "Connection", "keep-alive", "Content-Type", "content-type", "Cache-Control", "Content-Length",
        "content-length", "Accept-Encoding", "accept-encoding", "application/json",
        "application/json; charset=utf-8", "application/graphql-response+json",
        // Near misses and others: decoded as they are, case kept.
        "", "HOST", "Hosts", "Hast", "/graphqL", "CONTENT-TYPE", "Application/JSON", "application/jsoN",
        "application/json; charset=UTF-8", "x-custom", "caf\u{E9}", "127.0.0.1:8080",
    ])
    func everyPieceReadsAsItsBytes(text: String) {
        let string = Self.made(text)
        #expect(string == text)
        #expect(Array(string.utf8) == Array(text.utf8))
    }
}
