// A request's answering side held by reference: what a fetch's waiters are (the in-flight table
// and the fetch's run keep one reference each, not a copy of every field).

import BreakwaterCore

/// A `RequestContext` shared by whoever answers the request once its fetch ends, with how that
/// answer is dressed for the client (`FetchOutcome.reply(for:)`; an answer given at once is
/// dressed by the flow, so the context alone does without).
final class SharedRequestContext: Sendable {
    let context: RequestContext
    let client: ClientView

    init(_ context: RequestContext, client: ClientView) {
        self.context = context
        self.client = client
    }

    /// `RequestContext.finish`.
    func finish(_ reply: consuming FlowReply, upstream: Duration? = nil) {
        context.finish(reply, upstream: upstream)
    }

    /// Answers with a fetch's `outcome` dressed for this client. The client is read here, in
    /// place: read from outside (`context.client`), the whole view was copied for the call.
    func finish(_ outcome: FetchOutcome, upstream: Duration?) {
        context.finish(outcome.reply(for: client), upstream: upstream)
    }
}
