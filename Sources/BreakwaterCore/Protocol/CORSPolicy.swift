// Cross-origin answers for browsers (server.cors): preflights, and the headers every response
// carries so that the browser lets the page read it.

/// The CORS rules of one listener.
package struct CORSPolicy: Sendable {
    private let allowsAnyOrigin: Bool
    private let allowOrigins: Set<String>
    private let allowHeaders: String
    private let maxAgeSeconds: Int64

    package init(_ settings: Configuration.CORS) {
        allowsAnyOrigin = settings.allowOrigins.contains("*")
        allowOrigins = Set(settings.allowOrigins.map { $0.lowercased() })
        allowHeaders = settings.allowHeaders.joined(separator: ", ")
        maxAgeSeconds = settings.maxAge.components.seconds
    }

    /// The response headers a page may read besides the CORS-safelisted ones (README "The response cache").
    package static let exposedHeaders = "X-Cache, Age, ETag, X-Request-Id"

    /// The headers for a response to a request from `origin` (the `Origin` header): the allowed
    /// origin, the headers a page may read, and `Vary: Origin` whenever the answer depends on it.
    /// Nothing but `Vary` for foreign origins.
    package func responseHeaders(origin: String?) -> HTTPHeaders {
        if allowsAnyOrigin {
            return ["Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": Self.exposedHeaders]
        }
        var headers: HTTPHeaders = ["Vary": "Origin"]
        if let origin, allowOrigins.contains(origin.lowercased()) {
            headers.add("Access-Control-Allow-Origin", origin)
            headers.add("Access-Control-Expose-Headers", Self.exposedHeaders)
        }
        return headers
    }

    /// The answer to an `OPTIONS` preflight: 204 with the allowed methods, headers and max age
    /// for an allowed origin; 204 without any `Access-Control-Allow-*` for a foreign one, which
    /// the browser takes as a refusal.
    package func preflight(origin: String?) -> HTTPResponse {
        var headers = responseHeaders(origin: origin)
        headers.remove("Access-Control-Expose-Headers")
        if headers.contains("Access-Control-Allow-Origin") {
            headers.add("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
            headers.add("Access-Control-Allow-Headers", allowHeaders)
            headers.add("Access-Control-Max-Age", String(maxAgeSeconds))
        }
        return HTTPResponse(status: 204, headers: headers)
    }
}
