// A request's answering side held by reference: what a fetch's waiters are (the in-flight table
// and the fetch's run keep one reference each, not a copy of every field).

import BreakwaterCore

/// A `RequestContext` shared by whoever answers the request once its fetch ends, with whom to
/// answer, the loop's statistics and log, and how that answer is dressed for the client
/// (`FetchOutcome.reply(for:)`; an answer given at once is dressed by the flow, so the context
/// alone does without).
final class SharedRequestContext: Sendable {
    let context: RequestContext
    let client: ClientView
    /// A waiter's own fetch, made on its own loop should the answer it waits for not be its to
    /// have (`FetchWaiter`); nil for a request nobody waits with.
    let refetch: Refetch?
    private let responder: any HTTPResponder
    private let statistics: LoopStatistics
    private let accessLog: ProxyLogBuffer
    /// The request's trace, when tracing export is on: told why its answer bypassed the cache.
    private let trace: TracedRequest?

    /// A waiter's plan (its own request's upstream headers) and the handler of its loop.
    struct Refetch: Sendable {
        let plan: FetchPlan
        let handler: ProxyHandler
    }

    init(
        _ context: RequestContext, client: ClientView, refetch: Refetch? = nil, responder: any HTTPResponder,
        statistics: LoopStatistics, accessLog: ProxyLogBuffer, trace: TracedRequest? = nil
    ) {
        self.trace = trace
        self.context = context
        self.client = client
        self.refetch = refetch
        self.responder = responder
        self.statistics = statistics
        self.accessLog = accessLog
    }

    /// `RequestContext.finish`, to this request's responder and its loop's statistics and log.
    func finish(_ reply: consuming FlowReply, upstream: Duration? = nil) {
        context.finish(reply, upstream: upstream, to: responder, statistics: statistics, accessLog: accessLog)
    }

    /// The client left before its answer: `RequestContext.abandon`.
    func abandon() {
        context.abandon(responder, statistics: statistics, accessLog: accessLog)
    }

    /// Answers with a fetch's `outcome` dressed for this client. The client is read here, in
    /// place: read from outside (`context.client`), the whole view was copied for the call.
    func finish(_ outcome: FetchOutcome, upstream: Duration?) {
        if let trace { trace.bypassReason = outcome.bypassReason }
        finish(outcome.reply(for: client), upstream: upstream)
    }
}
