// Which protocol a request arrived over: the access log names it, the statistics count by it.

/// The HTTP version of a client connection.
package enum HTTPVersion: Sendable, Hashable, CaseIterable {
    case http1
    case http2

    /// As the access log and the `protocol` label write it.
    package var label: String {
        switch self {
        case .http1: "HTTP/1.1"
        case .http2: "HTTP/2"
        }
    }
}
