// An HTTP request method as a value, so that the request path switches over cases instead of
// comparing strings (and a typo is a compile error, not a silent 405).

/// The method of an HTTP request. Tokens are case-sensitive (RFC 9110 §9.1): `get` is `.other("get")`.
package enum HTTPMethod: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    case get, head, post, put, delete, options, patch
    case other(String)

    /// The method named by `token` as it came on the request line.
    package init(token: String) {
        switch token {
        case "GET": self = .get
        case "HEAD": self = .head
        case "POST": self = .post
        case "PUT": self = .put
        case "DELETE": self = .delete
        case "OPTIONS": self = .options
        case "PATCH": self = .patch
        default: self = .other(token)
        }
    }

    package init(stringLiteral token: String) { self.init(token: token) }

    /// The method's token as sent on a request line.
    package var token: String {
        switch self {
        case .get: "GET"
        case .head: "HEAD"
        case .post: "POST"
        case .put: "PUT"
        case .delete: "DELETE"
        case .options: "OPTIONS"
        case .patch: "PATCH"
        case .other(let token): token
        }
    }

    package var description: String { token }
}
