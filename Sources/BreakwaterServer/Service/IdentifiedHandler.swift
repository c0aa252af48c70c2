// Readies every GraphQL request before the proxy sees it: the fields its `Connection` header
// names leave it first (they are for this hop alone: never forwarded, keyed or used as the id),
// then it gets an id: the client's sane `X-Request-Id` or a new one, set on the request (`requestID`, so the origin receives it) and
// on whatever answer goes back, errors included. The identity rides on the responder, where
// RequestContext finds it for the access log.

import BreakwaterCore

/// Wraps one loop's proxy handler with request identity.
final class IdentifiedHandler: HTTPHandler, @unchecked Sendable {
    private let inner: any HTTPHandler
    /// Touched only on this handler's loop.
    private var generator = RequestIDGenerator()

    init(_ inner: any HTTPHandler) {
        self.inner = inner
    }

    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        request.removeConnectionScopedFields()
        let identity = RequestIdentity(request, generator: &generator)
        // Beside the headers, not in them; the request is consumed, so this does not copy it.
        request.requestID = identity.requestID
        inner.handle(request, responder: IdentifiedResponder(identity: identity, inner: responder))
    }

    func refused(_ response: HTTPResponse, remoteAddress: String) {
        inner.refused(response, remoteAddress: remoteAddress)
    }
}

/// A responder that stamps `X-Request-Id` on the answer and carries the request's identity.
final class IdentifiedResponder: HTTPResponder, Sendable {
    let identity: RequestIdentity
    private let inner: any HTTPResponder

    init(identity: RequestIdentity, inner: any HTTPResponder) {
        self.identity = identity
        self.inner = inner
    }

    func respond(_ response: HTTPResponse) {
        var response = response
        response.requestID = identity.requestID
        inner.respond(response)
    }

    func closeConnection() { inner.closeConnection() }
}
