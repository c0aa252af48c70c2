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

    /// Whether `body` is a JSON object with a top-level `errors` member: a GraphQL error answer,
    /// not an HTML or plain-text page.
    package static func isGraphQLErrorBody(_ body: [UInt8]) -> Bool {
        jsonObject(body).map(hasErrors) ?? false
    }

    /// The body parsed, when it is a JSON object (the only form a GraphQL answer takes).
    package static func jsonObject(_ body: [UInt8]) -> JSONValue? {
        guard let value = try? JSONParser.parse(body), value.isObject else { return nil }
        return value
    }

    /// The one test of "the answer has errors" (SPEC section 5): a top-level `errors` member,
    /// even an empty one.
    package static func hasErrors(_ answer: JSONValue) -> Bool {
        answer["errors"] != nil
    }
}
