// A client request as the HTTP engine parsed it: what every handler (proxy, admin, demo) receives.

/// One HTTP request received by a listener.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The request-target exactly as sent: path and query string.
    package var target: String
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The peer's address, for `X-Forwarded-For`.
    package var remoteAddress: String
    /// Whether the request arrived over TLS, for `X-Forwarded-Proto`.
    package var isSecure: Bool
    /// The id the identity layer gave the request (SPEC section 3): forwarded to the origin as
    /// `X-Request-Id` in place of the client's field, without rewriting `headers`.
    package var requestID: String?

    package init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "", isSecure: Bool = false
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.isSecure = isSecure
        requestID = nil
    }

    /// The target's path, without the query string.
    package var path: Substring {
        // Searched as bytes: a Character search walks grapheme clusters (a hit path cost).
        if let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) { return target[..<q] }
        return target[...]
    }

    /// The target's query string without "?", or nil when there is none.
    package var query: Substring? {
        guard let q = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        return target[target.utf8.index(after: q)...]
    }
}
