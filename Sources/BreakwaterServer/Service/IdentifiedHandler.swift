// Readies every GraphQL request before the proxy sees it: the fields its `Connection` header
// names leave it first (they are for this hop alone: never forwarded, keyed or used as the id),
// then it gets its identity: the client's sane `X-Request-Id` or a new one, with the address, user
// agent and Apollo client name the access log and metrics name. The identity rides on the request
// (`HTTPRequest.identity`): the origin receives the id, and whatever answers the request (the
// proxy's RequestContext, the batch handler) stamps it on the answer, errors included.

import BreakwaterCore

/// Gives each request of one loop its identity, then hands it to the proxy handler.
final class IdentifiedHandler: HTTPHandler, @unchecked Sendable {
    private let inner: any HTTPHandler
    /// Touched only on this handler's loop.
    private var generator = RequestIDGenerator()

    init(_ inner: any HTTPHandler) {
        self.inner = inner
    }

    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        request.removeConnectionScopedFields()
        // Beside the headers, not in them; the request is consumed, so this does not copy it.
        request.identity = RequestIdentity(request, generator: &generator)
        inner.handle(request, responder: responder)
    }

    func refused(_ response: HTTPResponse, remoteAddress: String, version: HTTPVersion) {
        inner.refused(response, remoteAddress: remoteAddress, version: version)
    }
}
