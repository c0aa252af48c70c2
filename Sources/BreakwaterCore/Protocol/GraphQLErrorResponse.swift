// Every error Breakwater answers itself, in one table: HTTP status, GraphQL error code and
// message, and the headers that go with them (SPEC section 3).

/// An error answer with a GraphQL body `{"errors":[{"message":...,"extensions":{"code":...}}]}`.
package struct GraphQLErrorResponse: Error, Sendable, Equatable {
    package var status: Int
    package var message: String
    package var code: String
    /// Extra headers, such as `Allow` for 405.
    package var headers: HTTPHeaders

    package init(status: Int, message: String, code: String, headers: HTTPHeaders = [:]) {
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers
    }

    /// The JSON body.
    package var body: [UInt8] {
        Array(
            "{\"errors\":[{\"message\":\(JSONText.quoted(message)),\"extensions\":{\"code\":\(JSONText.quoted(code))}}]}"
                .utf8)
    }

    /// The whole response: JSON body, `Cache-Control: no-store` unless the table says otherwise.
    package var response: HTTPResponse {
        var all: HTTPHeaders = ["Content-Type": "application/json"]
        if !headers.contains("Cache-Control") { all.add("Cache-Control", "no-store") }
        all.fields += headers.fields
        return HTTPResponse(status: status, headers: all, body: body)
    }

    // MARK: - The table

    /// A malformed request (400, code BAD_REQUEST).
    package static func badRequest(_ message: String) -> Self {
        Self(status: 400, message: message, code: "BAD_REQUEST")
    }

    package static func notFound(path: Substring) -> Self {
        Self(status: 404, message: "Not found: \(path). GraphQL is served at the configured graphql_path.", code: "NOT_FOUND")
    }

    package static func methodNotAllowed(_ method: String) -> Self {
        Self(
            status: 405, message: "Method \(method) is not allowed: use GET or POST.", code: "METHOD_NOT_ALLOWED",
            headers: ["Allow": "GET, POST"])
    }

    package static func unsupportedMediaType(_ contentType: String?) -> Self {
        Self(
            status: 415,
            message: "POST requests must have Content-Type: application/json"
                + (contentType.map { " (got \($0))" } ?? " (none given)") + ".",
            code: "UNSUPPORTED_MEDIA_TYPE")
    }

    package static func originUnavailable(_ failure: OriginFailure) -> Self {
        switch failure {
        case .timeout:
            Self(status: 504, message: "The origin did not answer in time.", code: "ORIGIN_TIMEOUT")
        case .unreachable(let reason):
            Self(status: 502, message: "The origin is unavailable: \(reason).", code: "ORIGIN_UNAVAILABLE")
        case .malformed(let reason):
            Self(status: 502, message: "The origin's answer was unusable: \(reason).", code: "ORIGIN_BAD_RESPONSE")
        }
    }

    package static func originError(status: Int) -> Self {
        Self(
            status: 502, message: "The origin answered with HTTP \(status) and no GraphQL body.",
            code: "ORIGIN_ERROR")
    }
}
