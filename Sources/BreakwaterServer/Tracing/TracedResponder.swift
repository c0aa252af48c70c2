// The answer side of a request whose trace is recorded: when the answer is handed over (or the
// client left first), the request's spans end (`TracedRequest.spans`) and go to the exporter,
// then the answer goes on to the connection's responder.

import BreakwaterCore

/// Ends a traced request's spans as its answer passes.
final class TracedResponder: HTTPResponder, @unchecked Sendable {
    private let inner: any HTTPResponder
    private let trace: TracedRequest
    private let tracer: Tracer

    init(_ inner: any HTTPResponder, trace: TracedRequest, tracer: Tracer) {
        self.inner = inner
        self.trace = trace
        self.tracer = tracer
    }

    func respond(_ response: HTTPResponse) {
        let cache = response.headerValue("X-Cache").flatMap(XCache.init(rawValue:))
        tracer.record(trace.spans(status: response.status, cache: cache, end: tracer.now, ids: tracer.ids))
        inner.respond(response)
    }

    func closeConnection() {
        tracer.record(
            trace.spans(status: RequestContext.clientClosedStatus, cache: nil, end: tracer.now, ids: tracer.ids))
        inner.closeConnection()
    }

    func whenClientLeaves(_ body: @escaping @Sendable () -> Void) {
        inner.whenClientLeaves(body)
    }
}
