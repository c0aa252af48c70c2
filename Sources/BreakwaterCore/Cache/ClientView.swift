// What of a client's request shapes its answer: method, conditional headers, media type, CORS.

/// The parts of one client request that decide how an answer is dressed.
package struct ClientView: Sendable {
    /// GET answers may be cached by a CDN in front; POST answers never are.
    package var isGET: Bool
    package var ifNoneMatch: [String]
    /// The client listed `application/graphql-response+json` in `Accept`.
    package var wantsGraphQLResponseJSON: Bool
    /// Headers every answer carries (CORS).
    package var extraHeaders: HTTPHeaders

    package init(isGET: Bool, ifNoneMatch: [String], wantsGraphQLResponseJSON: Bool, extraHeaders: HTTPHeaders) {
        self.isGET = isGET
        self.ifNoneMatch = ifNoneMatch
        self.wantsGraphQLResponseJSON = wantsGraphQLResponseJSON
        self.extraHeaders = extraHeaders
    }

    package init(request: HTTPRequest, operation: PreparedOperation) {
        self.init(
            isGET: operation.clientMethod == .get,
            ifNoneMatch: request.headers.values(of: "If-None-Match"),
            wantsGraphQLResponseJSON: request.headers.values(of: "Accept").contains {
                $0.range(of: "application/graphql-response+json", options: []) != nil
            },
            extraHeaders: operation.responseHeaders)
    }

    /// The Content-Type of a successful JSON answer (SPEC 5.2).
    package var jsonContentType: String {
        wantsGraphQLResponseJSON ? "application/graphql-response+json" : "application/json"
    }
}
