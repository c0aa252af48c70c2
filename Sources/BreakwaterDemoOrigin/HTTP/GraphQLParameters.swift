// Reads `query`, `operationName` and `variables` from a GraphQL-over-HTTP request.

import BreakwaterCore
import Foundation
import GraphQL

/// The parameters of one GraphQL request, from a POST body or a GET query string.
struct GraphQLParameters: Sendable {
    var query: String
    var operationName: String?
    var variables: [String: Map]

    /// Parses a POST's JSON body or a GET's URL-encoded parameters.
    ///
    /// Throws a `DemoRequestError` (answered with 400) for malformed JSON, a missing query or
    /// variables that are not an object, as Apollo Server does.
    init(_ request: HTTPRequest) throws(DemoRequestError) {
        let fields: [String: Map]
        if request.method == "GET" {
            fields = try Self.fields(queryString: request.query ?? "")
        } else {
            fields = try Self.fields(body: request.body)
        }
        guard case .string(let query)? = fields["query"], !query.isEmpty else {
            throw DemoRequestError("GraphQL operations must contain a non-empty `query`.")
        }
        self.query = query
        switch fields["operationName"] {
        case nil, .null?, .undefined?: operationName = nil
        case .string(let name)?: operationName = name.isEmpty ? nil : name
        default: throw DemoRequestError("`operationName` must be a string.")
        }
        switch fields["variables"] {
        case nil, .null?, .undefined?: variables = [:]
        case .dictionary(let object)?: variables = Dictionary(uniqueKeysWithValues: object.map { ($0, $1) })
        default: throw DemoRequestError("`variables` must be a JSON object.")
        }
    }

    private static func fields(body: [UInt8]) throws(DemoRequestError) -> [String: Map] {
        guard case .dictionary(let object)? = try? JSONDecoder().decode(Map.self, from: Data(body)) else {
            throw DemoRequestError("POST body missing, invalid, or not a JSON object.")
        }
        return Dictionary(uniqueKeysWithValues: object.map { ($0, $1) })
    }

    /// GET parameters are strings; `variables` (and `extensions`) hold JSON.
    private static func fields(queryString: Substring) throws(DemoRequestError) -> [String: Map] {
        var fields: [String: Map] = [:]
        for pair in queryString.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]) else { throw DemoRequestError("Malformed query string.") }
            guard let value = percentDecoded(parts.count > 1 ? parts[1] : "") else {
                throw DemoRequestError("Malformed query string.")
            }
            guard !value.isEmpty else { continue }
            if name == "variables" || name == "extensions" {
                guard let json = try? JSONDecoder().decode(Map.self, from: Data(value.utf8)) else {
                    throw DemoRequestError("`\(name)` is not valid JSON.")
                }
                fields[name] = json
            } else {
                fields[name] = .string(value)
            }
        }
        return fields
    }

    /// Form decoding: `+` is a space, then `%XX` escapes.
    private static func percentDecoded(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// A request the demo origin cannot make sense of: answered with 400 and `code: BAD_REQUEST`.
struct DemoRequestError: Error, Sendable {
    var message: String

    init(_ message: String) { self.message = message }
}
