// A parsed request line and header section, as offsets into the connection's read buffer.

/// What a request's head says, with the framing already decided.
package struct HTTP1RequestHead: Sendable, Equatable {
    package var method: Range<Int> = 0..<0
    package var target: Range<Int> = 0..<0
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    package var minorVersion = 1
    /// Header fields in arrival order; the array's storage is reused from request to request.
    package var fields: [HTTP1Field] = []
    /// Whether the connection stays open after this request's answer.
    package var keepAlive = true
    /// `Expect: 100-continue` was sent: the client waits for an interim answer before the body.
    package var expectsContinue = false
    package var bodyLength: HTTP1BodyLength = .none
    /// Request line and header lines in bytes (what max_header_bytes measures).
    package var headBytes = 0

    package init() { fields.reserveCapacity(32) }

    mutating func reset() {
        method = 0..<0
        target = 0..<0
        minorVersion = 1
        fields.removeAll(keepingCapacity: true)
        keepAlive = true
        expectsContinue = false
        bodyLength = .none
        headBytes = 0
    }

    mutating func shift(by count: Int) {
        method = (method.lowerBound - count)..<(method.upperBound - count)
        target = (target.lowerBound - count)..<(target.upperBound - count)
        for index in fields.indices { fields[index] = fields[index].shifted(by: count) }
    }
}

/// How a message's body is delimited.
package enum HTTP1BodyLength: Sendable, Equatable {
    case none
    case length(Int)
    case chunked
    /// Until the peer closes (responses only).
    case untilClose
}
