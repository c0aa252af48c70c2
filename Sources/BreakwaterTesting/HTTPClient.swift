// A minimal blocking HTTP/1.1 client over POSIX sockets, one fresh connection per request.

/// Sends requests to one server, each on its own connection, for integration tests.
public struct HTTPClient: Sendable, HTTPRequestSending {
    public var host: String
    public var port: Int

    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Sends one request on a fresh connection and returns the response, all within `timeout`.
    ///
    /// Adds `Connection: close` unless `headers` has a `Connection` field, and `Host` and
    /// `Content-Length` as `KeepAliveClient.send` does.
    public func send(
        method: String, target: String, headers: [(String, String)], body: [UInt8], timeout: Duration
    ) throws -> HTTPClientResponse {
        let deadline = Deadline(after: timeout)
        let connection = try KeepAliveClient(host: host, port: port, timeout: timeout)
        defer { connection.close() }
        let hasConnectionField = headers.contains { $0.0.caseInsensitiveCompare("Connection") == .orderedSame }
        return try connection.send(
            method: method, target: target, headers: hasConnectionField ? headers : headers + [("Connection", "close")],
            body: body, timeout: deadline.remaining)
    }

    /// Writes arbitrary bytes on a fresh connection and parses the answer, if any.
    ///
    /// Returns nil when the server closed (or reset) the connection without answering. With
    /// `closeWrite`, the client half-closes after writing, so a server waiting for more bytes sees EOF.
    public func sendRaw(
        _ bytes: [UInt8], closeWrite: Bool = false, timeout: Duration = .seconds(10)
    ) throws -> HTTPClientResponse? {
        let deadline = Deadline(after: timeout)
        let connection = try KeepAliveClient(host: host, port: port, timeout: timeout)
        defer { connection.close() }
        do {
            try connection.write(bytes, timeout: deadline.remaining)
        } catch HTTPClientError.closed {
            // The server may have answered and closed before reading everything; read what it sent.
        }
        if closeWrite { connection.closeWrite() }
        return try connection.readResponse(requestMethod: Self.method(in: bytes), timeout: deadline.remaining)
    }

    /// The method of a raw request, so a HEAD response is parsed without a body.
    private static func method(in bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix { $0 != 32 && $0 != 13 && $0 != 10 }.prefix(16), as: UTF8.self)
    }
}
