// libFuzzer harness: the query-string parser and percent-decoder on any text never crash, and
// encoding then decoding any value gives it back (scripts/fuzz.sh).

import BreakwaterCore
import FuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryString(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    let parameters = QueryString(Substring(text))
    for name in ["query", "variables", "extensions", "operationName", "documentId", ""] {
        _ = parameters.values(of: name)
    }
    let decoded = QueryString.decode(Substring(text))
    precondition(QueryString.decode(Substring(QueryString.encode(decoded))) == decoded, "encode/decode round trip")
    // The GET parser on the same text: an answer or a GraphQL error, never a crash.
    _ = try? GraphQLRequestParser.parse(HTTPRequest(method: "GET", target: "/graphql?" + text))
    return 0
}

runFuzzer(fuzzQueryString)
