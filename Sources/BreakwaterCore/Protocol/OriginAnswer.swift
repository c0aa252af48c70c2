// How an origin's answer is relayed to the client (SPEC section 4).

/// The client-facing form of an origin response.
package enum OriginAnswer {
    /// Relays status, `Content-Type` and body; a 5xx without a GraphQL JSON body becomes 502
    /// so that an origin's HTML error page never reaches the client.
    package static func relay(_ origin: HTTPResponse) -> HTTPResponse {
        if origin.status >= 500 && !isGraphQLErrorBody(origin.body) {
            return GraphQLErrorResponse.originError(status: origin.status).response
        }
        var headers = HTTPHeaders()
        headers.add("Content-Type", origin.headers["Content-Type"] ?? "application/json")
        return HTTPResponse(status: origin.status, headers: headers, body: origin.body)
    }

    /// Whether `body` looks like a JSON object with a top-level `errors` member. A shallow
    /// check, enough to tell a GraphQL error answer from an HTML or plain-text page.
    package static func isGraphQLErrorBody(_ body: [UInt8]) -> Bool {
        guard let first = body.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }),
            first == UInt8(ascii: "{")
        else { return false }
        return body.containsSequence(Array("\"errors\"".utf8))
    }
}
