// How an origin's answer is relayed to the client (README, "The origin side").

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

    /// Whether `body` is a JSON object with a top-level `errors` member, parsed only when the
    /// bytes `"errors"` occur in it: an answer without them (almost every one) costs one scan.
    package static func hasTopLevelErrors(_ body: [UInt8]) -> Bool {
        guard containsErrorsKey(body) else { return false }
        return isGraphQLErrorBody(body)
    }

    /// Whether the 8 bytes `"errors"` occur anywhere in `body`.
    private static func containsErrorsKey(_ body: [UInt8]) -> Bool {
        body.withUnsafeBufferPointer { bytes in
            let word: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0x65, 0x72, 0x72, 0x6F, 0x72, 0x73, 0x22)
            guard bytes.count >= 8 else { return false }
            var index = 0
            let last = bytes.count - 8
            while index <= last {
                // Step to the next quote; most bytes are not one.
                guard bytes[index] == 0x22 else { index += 1; continue }
                if bytes[index + 1] == word.0 && bytes[index + 2] == word.1 && bytes[index + 3] == word.2
                    && bytes[index + 4] == word.3 && bytes[index + 5] == word.4 && bytes[index + 6] == word.5
                    && bytes[index + 7] == word.6
                {
                    return true
                }
                index += 1
            }
            return false
        }
    }

    /// The body parsed, when it is a JSON object (the only form a GraphQL answer takes).
    package static func jsonObject(_ body: [UInt8]) -> JSONValue? {
        guard let value = try? JSONParser.parse(body), value.isObject else { return nil }
        return value
    }

    /// The one test of "the answer has errors" (README, "The response cache"): a top-level `errors` member,
    /// even an empty one.
    package static func hasErrors(_ answer: JSONValue) -> Bool {
        answer["errors"] != nil
    }
}
