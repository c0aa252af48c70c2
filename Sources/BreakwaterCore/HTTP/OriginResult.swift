// What came back from one request to the origin.

/// The origin's answer, or why there was none.
package enum OriginResult: Sendable {
    case response(HTTPResponse)
    case failure(OriginFailure)
}

/// Why the origin gave no usable answer; maps to 502 or 504 (SPEC section 4).
package enum OriginFailure: Sendable, Equatable, Error {
    /// Connection refused, reset, or closed before a whole response arrived.
    case unreachable(String)
    /// No answer within `origin.timeout`.
    case timeout
    /// A response that could not be parsed, or was too large.
    case malformed(String)

    package var status: Int {
        if case .timeout = self { return 504 }
        return 502
    }
}
