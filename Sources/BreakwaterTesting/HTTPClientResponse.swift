// A complete HTTP response as the test client received it, with helpers for assertions.
import Foundation

/// One HTTP/1.x response: status, headers in wire order, and the decoded body.
public struct HTTPClientResponse: Sendable, CustomStringConvertible {
    /// The status code, such as 200.
    public var status: Int
    /// The reason phrase after the status code, possibly empty.
    public var reason: String
    /// The protocol version from the status line, such as "HTTP/1.1".
    public var version: String
    /// Header fields in the order received, names as sent.
    public var headers: [(name: String, value: String)]
    /// The body after removing chunked framing.
    public var body: [UInt8]

    public init(
        status: Int, reason: String = "", version: String = "HTTP/1.1",
        headers: [(name: String, value: String)] = [], body: [UInt8] = []
    ) {
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matching its name case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Every value of a header, in order, matching its name case-insensitively.
    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// The body decoded as UTF-8, invalid bytes replaced.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed with JSONSerialization, or nil if it is not JSON.
    public var json: Any? {
        try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
    }

    /// The body as a JSON object, or nil if it is anything else.
    public var jsonObject: [String: Any]? { json as? [String: Any] }

    public var description: String {
        let head = headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
        return "\(version) \(status) \(reason)\n\(head)\n\n\(text)"
    }
}
