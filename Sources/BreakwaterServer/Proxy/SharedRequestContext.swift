// A request's answering side held by reference: what a fetch's waiters are (the in-flight table
// and the fetch's run keep one reference each, not a copy of every field).

import BreakwaterCore

/// A `RequestContext` shared by whoever answers the request once its fetch ends.
final class SharedRequestContext: Sendable {
    let context: RequestContext

    init(_ context: RequestContext) {
        self.context = context
    }

    var client: ClientView { context.client }

    /// `RequestContext.finish`.
    func finish(_ reply: consuming FlowReply, upstream: Duration? = nil) {
        context.finish(reply, upstream: upstream)
    }
}
