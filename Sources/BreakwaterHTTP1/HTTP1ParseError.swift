// Why a message was refused, and the status the server answers (RFC 9112; README, "The HTTP/1.1
// engine").

/// A parser's verdict on a message it refuses. Every verdict closes the connection: after a
/// framing error the server can no longer tell where the next request starts.
package struct HTTP1ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Reason: String, Sendable {
        case badRequestLine = "the request line is not METHOD SP target SP HTTP/1.x"
        case badTarget = "the request-target holds a space, control or non-ASCII character"
        case badTargetForm = "the request-target is not /path, scheme:..., * or (with CONNECT) host:port"
        case badVersion = "the HTTP version is not HTTP/1.0 or HTTP/1.1"
        case badHeaderName = "a header name holds a space, a control character or a separator"
        case badHeaderValue = "a header value holds CR, LF, NUL or another control character"
        case obsoleteLineFolding = "a header line starts with whitespace (obsolete line folding)"
        case badContentLength = "Content-Length is not a plain decimal number"
        case conflictingContentLength = "two Content-Length values differ"
        case contentLengthWithTransferEncoding = "Content-Length and Transfer-Encoding together"
        case unsupportedTransferEncoding = "a Transfer-Encoding other than chunked"
        case transferEncodingInHTTP10 = "Transfer-Encoding in an HTTP/1.0 message"
        case missingHost = "an HTTP/1.1 request without Host"
        case duplicateHost = "two Host headers"
        case badChunk = "a malformed chunk"
        case targetTooLong = "the request-target is over max_uri_bytes"
        case headTooLarge = "the request line and headers are over max_header_bytes"
        case bodyTooLarge = "the body is over max_body_bytes"
        case badStatusLine = "the status line is not HTTP/1.x SP 3DIGIT"
        case unexpectedStatus = "a status the client did not ask for (101 Switching Protocols)"
        case truncated = "the connection closed inside a message"
    }

    package let reason: Reason
    /// For the size verdicts: the length seen so far (at least limit + 1) and the limit.
    package let length: Int
    package let limit: Int

    package init(_ reason: Reason, length: Int = 0, limit: Int = 0) {
        self.reason = reason
        self.length = length
        self.limit = limit
    }

    /// The status a server answers with.
    package var status: Int {
        switch reason {
        case .targetTooLong: 414
        case .headTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedTransferEncoding: 501
        default: 400
        }
    }

    package var description: String { reason.rawValue }
}
