// Reads `query`, `operationName` and `variables` from a GraphQL-over-HTTP request with the
// core's parser (the one Breakwater itself uses), so the demo origin and the proxy agree on
// what a request means.

import BreakwaterCore
import GraphQL

/// The parameters of one GraphQL request, from a POST body or a GET query string.
struct GraphQLParameters: Sendable {
    var query: String
    var operationName: String?
    var variables: [String: Map]

    /// Parses a POST's JSON body or a GET's URL-encoded parameters.
    ///
    /// Throws a `DemoRequestError` (answered with 400) for malformed JSON, a missing query or
    /// variables that are not an object, with Apollo Server's messages.
    init(_ request: HTTPRequest) throws(DemoRequestError) {
        let parsed: BreakwaterCore.GraphQLRequest
        do {
            parsed = try GraphQLRequestParser.parse(request)
        } catch {
            throw DemoRequestError(error.message)
        }
        guard let query = parsed.query, !query.isEmpty else {
            throw DemoRequestError("GraphQL operations must contain a non-empty `query`.")
        }
        self.query = query
        operationName = parsed.operationName.flatMap { $0.isEmpty ? nil : $0 }
        switch parsed.variables {
        case .object(let members)?:
            variables = Dictionary(members.map { ($0.key, Map($0.value)) }, uniquingKeysWith: { first, _ in first })
        default:
            variables = [:]
        }
    }
}

/// A request the demo origin cannot make sense of: answered with 400 and `code: BAD_REQUEST`.
struct DemoRequestError: Error, Sendable {
    var message: String

    init(_ message: String) { self.message = message }
}
