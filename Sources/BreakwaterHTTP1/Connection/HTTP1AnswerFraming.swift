// How one answer's head frames the connection: what the server connection's state machine
// decided from the request, and what the response writer writes.

/// The framing of an answer, fixed when its request was read.
package struct HTTP1AnswerFraming: Sendable, Equatable {
    /// The request was HEAD: the answer's head says the body's length, the body is not sent.
    package var omitsBody: Bool
    /// The connection stays open after this answer (else the head says `Connection: close`).
    package var keepAlive: Bool
    /// An HTTP/1.0 request that asked to keep the connection open: the head says so.
    package var http10KeepAlive: Bool

    package init(omitsBody: Bool, keepAlive: Bool, http10KeepAlive: Bool) {
        self.omitsBody = omitsBody
        self.keepAlive = keepAlive
        self.http10KeepAlive = http10KeepAlive
    }

    /// A refusal's answer: full body, then the connection ends.
    package static let closing = HTTP1AnswerFraming(omitsBody: false, keepAlive: false, http10KeepAlive: false)
}
