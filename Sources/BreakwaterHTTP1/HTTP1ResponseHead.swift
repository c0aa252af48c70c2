// A parsed status line and header section of an origin's response, as buffer offsets.

/// What a response's head says, with the framing already decided.
package struct HTTP1ResponseHead: Sendable, Equatable {
    package var status = 0
    package var minorVersion = 1
    package var fields: [HTTP1Field] = []
    /// Whether the connection may carry another request after this response.
    package var keepAlive = true
    package var bodyLength: HTTP1BodyLength = .none

    package init() { fields.reserveCapacity(32) }

    mutating func reset() {
        status = 0
        minorVersion = 1
        fields.removeAll(keepingCapacity: true)
        keepAlive = true
        bodyLength = .none
    }

    mutating func shift(by count: Int) {
        for index in fields.indices { fields[index] = fields[index].shifted(by: count) }
    }
}
