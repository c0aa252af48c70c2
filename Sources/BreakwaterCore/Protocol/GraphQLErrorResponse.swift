// Every error Breakwater answers itself, in one table: HTTP status, GraphQL error code and
// message, and the headers that go with them (README, "GraphQL over HTTP rules").

/// An error answer with a GraphQL body `{"errors":[{"message":...,"extensions":{"code":...}}]}`.
package struct GraphQLErrorResponse: Error, Sendable, Equatable {
    package var status: Int
    package var message: String
    package var code: String
    /// Extra headers, such as `Allow` for 405.
    package var headers: HTTPHeaders
    /// Where in the document the problem is (syntax errors).
    package var locations: [SourceLocation]

    package init(
        status: Int, message: String, code: String, headers: HTTPHeaders = [:], locations: [SourceLocation] = []
    ) {
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers
        self.locations = locations
    }

    /// The JSON body.
    package var body: [UInt8] {
        var text = "{\"errors\":[{\"message\":\(JSONText.quoted(message))"
        if !locations.isEmpty {
            text += ",\"locations\":["
            text += locations.map { "{\"line\":\($0.line),\"column\":\($0.column)}" }.joined(separator: ",")
            text += "]"
        }
        text += ",\"extensions\":{\"code\":\(JSONText.quoted(code))}}]}"
        return Array(text.utf8)
    }

    /// The whole response: JSON body, `Cache-Control: no-store` unless the table says otherwise.
    package var response: HTTPResponse {
        var all: HTTPHeaders = ["Content-Type": "application/json"]
        if !headers.contains("Cache-Control") { all.add("Cache-Control", "no-store") }
        all.fields += headers.fields
        return HTTPResponse(status: status, headers: all, body: body)
    }

    // MARK: - The table

    /// Every code of the table, the document-size one and the HTTP engine's own (`NOT_IMPLEMENTED`,
    /// `REQUEST_TIMEOUT`), in the order `/metrics` lists them: their `breakwater_errors_total`
    /// series exist from the start, at 0.
    package static let answeredCodes: [String] = [
        "BAD_REQUEST", "DOCUMENT_TOO_LARGE", "GRAPHQL_PARSE_FAILED", "GRAPHQL_VALIDATION_FAILED", "METHOD_NOT_ALLOWED",
        "NOT_FOUND", "NOT_IMPLEMENTED", "OPERATION_RESOLUTION_FAILURE", "ORIGIN_BAD_RESPONSE", "ORIGIN_ERROR",
        "ORIGIN_TIMEOUT", "ORIGIN_UNAVAILABLE", "PAYLOAD_TOO_LARGE", "PERSISTED_QUERY_HASH_MISMATCH",
        "PERSISTED_QUERY_NOT_FOUND", "PERSISTED_QUERY_NOT_IN_LIST", "PERSISTED_QUERY_NOT_SUPPORTED",
        "QUERY_NOT_IN_SAFELIST", "REQUEST_HEADER_FIELDS_TOO_LARGE", "REQUEST_TIMEOUT", "SUBSCRIPTION_NOT_SUPPORTED",
        "UNSUPPORTED_MEDIA_TYPE", "URI_TOO_LONG",
    ]

    /// The statuses Breakwater answers with itself (its errors, its hits, 304), whose
    /// `breakwater_responses_total` series exist from the start, at 0.
    package static let answeredStatuses = [200, 304, 400, 403, 404, 405, 408, 413, 414, 415, 431, 501, 502, 504]

    /// A malformed request (400, code BAD_REQUEST).
    package static func badRequest(_ message: String) -> Self {
        Self(status: 400, message: message, code: "BAD_REQUEST")
    }

    // MARK: Persisted queries (messages exactly as Apollo Server and Router send them)

    /// Cache-Control of the answers that a client retries at once (not-found, not-supported).
    package static let retryCacheControl = "private, no-cache, must-revalidate"

    package static let persistedQueryNotFound = Self(
        status: 200, message: "PersistedQueryNotFound", code: "PERSISTED_QUERY_NOT_FOUND",
        headers: ["Cache-Control": retryCacheControl])

    package static let persistedQueryNotSupported = Self(
        status: 200, message: "PersistedQueryNotSupported", code: "PERSISTED_QUERY_NOT_SUPPORTED",
        headers: ["Cache-Control": retryCacheControl])

    package static let hashMismatch = Self(
        status: 400, message: "provided sha does not match query", code: "PERSISTED_QUERY_HASH_MISMATCH")

    package static let unsupportedVersion = Self(
        status: 400, message: "Unsupported persisted query version", code: "BAD_REQUEST")

    package static func notInPersistedQueryList(_ id: String) -> Self {
        Self(
            status: 404, message: "Persisted query '\(id)' not found in the persisted query list",
            code: "PERSISTED_QUERY_NOT_IN_LIST")
    }

    package static let queryNotInSafelist = Self(
        status: 403, message: "The operation body was not found in the persisted query safelist",
        code: "QUERY_NOT_IN_SAFELIST")

    package static let missingQuery = badRequest(
        "GraphQL operations must contain a non-empty `query` or a `persistedQuery` extension.")

    // MARK: Documents and operations

    package static func documentError(_ error: DocumentError) -> Self {
        switch error.kind {
        case .syntax:
            Self(status: 400, message: error.message, code: "GRAPHQL_PARSE_FAILED", locations: error.locations)
        case .reservedName:
            Self(status: 400, message: error.message, code: "GRAPHQL_VALIDATION_FAILED")
        default:
            Self(status: 400, message: error.message, code: "OPERATION_RESOLUTION_FAILURE")
        }
    }

    package static func mutationOverGET(_ kind: String) -> Self {
        Self(
            status: 405, message: "GET requests only support query operations, not \(kind) operations",
            code: "BAD_REQUEST", headers: ["Allow": "POST"])
    }

    package static let subscriptionNotSupported = Self(
        status: 400,
        message: "Subscriptions are not supported by Breakwater yet: send them to the origin's subscription endpoint.",
        code: "SUBSCRIPTION_NOT_SUPPORTED")

    // MARK: HTTP limits

    package static func uriTooLong(length: Int, limit: Int) -> Self {
        Self(
            status: 414,
            message: "The request-target is \(length) bytes, over the limit of \(limit): "
                + "send the operation as a POST with a JSON body instead.",
            code: "URI_TOO_LONG")
    }

    package static func bodyTooLarge(length: Int, limit: Int) -> Self {
        Self(
            status: 413, message: "The request body is \(length) bytes, over the limit of \(limit).",
            code: "PAYLOAD_TOO_LARGE")
    }

    package static func headersTooLarge(length: Int, limit: Int) -> Self {
        Self(
            status: 431, message: "The request line and headers are \(length) bytes, over the limit of \(limit).",
            code: "REQUEST_HEADER_FIELDS_TOO_LARGE")
    }

    // MARK: Routing and transport

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
        case .refused(let reason), .unreachable(let reason), .tls(let reason):
            Self(status: 502, message: "The origin is unavailable: \(reason).", code: "ORIGIN_UNAVAILABLE")
        case .malformed(let reason):
            Self(status: 502, message: "The origin's answer was unusable: \(reason).", code: "ORIGIN_BAD_RESPONSE")
        }
    }

    package static func originError(status: Int) -> Self {
        Self(
            status: 502, message: "The origin answered with HTTP \(status) and no GraphQL body.",
            code: originErrorCode)
    }

    /// The code an origin's 5xx is counted and logged under, relayed or turned into 502.
    package static let originErrorCode = "ORIGIN_ERROR"
}
