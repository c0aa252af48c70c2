// One persistent HTTP/1.1 connection for tests that send several requests in sequence (keep-alive);
// HTTPClient is its one-connection-per-request sibling.
import Foundation

/// A blocking HTTP/1.1 connection over a TCP socket; requests go one after another on the same socket.
///
/// Thread-safe: each operation holds a lock for its whole exchange.
public final class KeepAliveClient: @unchecked Sendable, HTTPRequestSending {
    /// The host and port the connection was made to.
    public let host: String
    public let port: Int

    private let lock = NSLock()
    private let socket: ClientSocket  // guarded by lock
    private var received: [UInt8] = []  // guarded by lock; bytes read past the last response
    private var peerClosed = false  // guarded by lock
    private var canSendAgain = true  // guarded by lock

    /// Connects to `host:port`, waiting at most `timeout`.
    public init(host: String = "127.0.0.1", port: Int, timeout: Duration = .seconds(10)) throws {
        self.host = host
        self.port = port
        socket = try ClientSocket(host: host, port: port, timeout: timeout)
    }

    deinit { socket.close() }

    /// Whether another request may be sent: the socket is open and no response asked to close it.
    public var isOpen: Bool {
        lock.withLock { socket.isOpen && canSendAgain && !peerClosed }
    }

    /// Sends one request and reads its response, all within `timeout`.
    ///
    /// Adds `Host` and, when there is a body or the method usually has one, `Content-Length`, unless
    /// `headers` already has them. After a response that ends the connection, `isOpen` becomes false.
    public func send(
        method: String, target: String, headers: [(String, String)], body: [UInt8], timeout: Duration
    ) throws -> HTTPClientResponse {
        let request = KeepAliveClient.serialize(
            method: method, target: target, authority: authority, headers: headers, body: body)
        return try lock.withLock {
            guard socket.isOpen, canSendAgain, !peerClosed else {
                throw HTTPClientError.closed(during: "before sending \(method) \(target)")
            }
            let deadline = Deadline(after: timeout)
            try socket.write(request, deadline: deadline)
            guard let response = try readResponseLocked(requestMethod: method, deadline: deadline) else {
                throw HTTPClientError.closed(during: "before a response to \(method) \(target)")
            }
            return response
        }
    }

    /// Writes bytes as they are, for malformed or pipelined requests.
    public func write(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws {
        try lock.withLock { try socket.write(bytes, deadline: Deadline(after: timeout)) }
    }

    /// Reads the next response, or nil when the peer closed before sending any byte of one.
    public func readResponse(
        requestMethod: String = "GET", timeout: Duration = .seconds(10)
    ) throws -> HTTPClientResponse? {
        try lock.withLock { try readResponseLocked(requestMethod: requestMethod, deadline: Deadline(after: timeout)) }
    }

    /// Half-closes the connection: the server reads end-of-file, and responses can still be read.
    public func closeWrite() {
        lock.withLock { socket.shutdownWrite() }
    }

    /// Closes the socket; further sends fail with `HTTPClientError.closed`.
    public func close() {
        lock.withLock { socket.close() }
    }

    // MARK: Internals

    private var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private func readResponseLocked(requestMethod: String, deadline: Deadline) throws -> HTTPClientResponse? {
        while true {
            if let parsed = try HTTPResponseParser.parse(
                received, requestMethod: requestMethod, atEndOfStream: peerClosed)
            {
                received.removeFirst(parsed.consumed)
                if !parsed.keepsConnection { canSendAgain = false }
                return parsed.response
            }
            if peerClosed {
                if received.isEmpty { return nil }
                throw HTTPClientError.closed(during: "after \(received.count) bytes of an incomplete response")
            }
            let bytes = try socket.read(deadline: deadline)
            if bytes.isEmpty { peerClosed = true } else { received += bytes }
        }
    }

    static func serialize(
        method: String, target: String, authority: String, headers: [(String, String)], body: [UInt8]
    ) -> [UInt8] {
        func has(_ name: String) -> Bool {
            headers.contains { $0.0.caseInsensitiveCompare(name) == .orderedSame }
        }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !has("Host") { head += "Host: \(authority)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let methodCarriesBody = ["POST", "PUT", "PATCH"].contains(method.uppercased())
        if (!body.isEmpty || methodCarriesBody) && !has("Content-Length") && !has("Transfer-Encoding") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + body
    }
}
