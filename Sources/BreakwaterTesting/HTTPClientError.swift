// Why an HTTPClient exchange failed, worded for a test failure message.

/// A failure of the test HTTP client.
public enum HTTPClientError: Error, Equatable, CustomStringConvertible {
    /// The TCP connection could not be made (refused, unreachable, bad address).
    case connectFailed(address: String, reason: String)
    /// The deadline passed before the exchange finished.
    case timedOut(during: String)
    /// The peer closed the connection (or it was already closed) before a complete response.
    case closed(during: String)
    /// The bytes received are not a valid HTTP/1.x response.
    case malformed(String)

    public var description: String {
        switch self {
        case .connectFailed(let address, let reason): "HTTP client: cannot connect to \(address): \(reason)"
        case .timedOut(let during): "HTTP client: timed out \(during)"
        case .closed(let during): "HTTP client: connection closed \(during)"
        case .malformed(let detail): "HTTP client: malformed response: \(detail)"
        }
    }
}
