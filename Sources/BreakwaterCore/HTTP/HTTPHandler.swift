// What a listener calls for every request, and how the handler answers.

/// Handles requests on a listener. `handle` runs on the event loop that received the
/// request; it must answer through `responder` exactly once, now or later, from any thread.
/// The request is consumed: a handler that changes it before passing it on does not copy it.
/// Class-bound, like `HTTPResponder`: a connection's copy of its listener's handler is a retain,
/// not a boxed existential's copy through value witnesses.
package protocol HTTPHandler: AnyObject, Sendable {
    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder)
    /// The HTTP engine answered `response` itself to a request it could not read (malformed
    /// framing, a limit, a head that never came) from `remoteAddress` over `version`: for the statistics and
    /// the access log. Called on the connection's loop; nothing by default.
    func refused(_ response: HTTPResponse, remoteAddress: String, version: HTTPVersion)
}

extension HTTPHandler {
    package func refused(_ response: HTTPResponse, remoteAddress: String, version: HTTPVersion) {}
}

/// The one answer to one request. Implemented by the I/O layer; callable from any thread.
/// Class-bound: every responder is an object, so an `any HTTPResponder` is one reference (a
/// copy is a retain, a cast to a concrete responder compares a class, and nothing is boxed).
package protocol HTTPResponder: AnyObject, Sendable {
    /// Sends the response. Only the first call of `respond` or `closeConnection` counts.
    func respond(_ response: HTTPResponse)
    /// Drops the connection without an answer (the demo origin's "close" fault).
    func closeConnection()
    /// Runs `body` once, on the connection's loop, should the client go away before the answer
    /// (a reset stream, a closed connection): what was started for it alone may stop.
    func whenClientLeaves(_ body: @escaping @Sendable () -> Void)
}

extension HTTPResponder {
    /// A responder whose client cannot leave early (a batch's slot, an in-process test) never calls `body`.
    package func whenClientLeaves(_ body: @escaping @Sendable () -> Void) {}
}
