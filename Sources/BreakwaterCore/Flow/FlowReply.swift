// The answer to one client request as the flow decided it: the response, and what the access log
// and the statistics need to know about it without reading the response back.

/// One answer, ready to send, with its cache outcome and why.
package struct FlowReply: Sendable {
    package var response: HTTPResponse
    /// The `X-Cache` the answer carries; nil only for answers that are not GraphQL answers
    /// (preflights). Breakwater's own errors are `BYPASS` (`errorAnswer`).
    package var cache: XCache?
    /// Why the answer was not stored or not served from the cache (`cache == .bypass`).
    package var bypassReason: BypassReason?
    /// The GraphQL error code of an error answer: Breakwater's own, or `ORIGIN_ERROR` for an
    /// origin's 5xx relayed.
    package var errorCode: String?
    /// The origin's status, when this answer came from an origin fetch.
    package var originStatus: Int?
    /// The APQ answers the statistics count (not found, hash mismatch).
    package var apqEvent: RequestStatistics.APQEvent?

    package init(
        response: HTTPResponse, cache: XCache? = nil, bypassReason: BypassReason? = nil, errorCode: String? = nil,
        originStatus: Int? = nil, apqEvent: RequestStatistics.APQEvent? = nil
    ) {
        self.response = response
        self.cache = cache
        self.bypassReason = bypassReason
        self.errorCode = errorCode
        self.originStatus = originStatus
        self.apqEvent = apqEvent
    }

    /// The error code the statistics and the access log record for this answer: the flow's own,
    /// else, for an answer that is no GraphQL answer of the flow (an engine's refusal, a
    /// preflight), the code its body names, if any.
    package var recordedErrorCode: String? {
        errorCode ?? (cache == nil ? AnswerErrorCode.code(in: response.completeBody) : nil)
    }

    /// An error answered by Breakwater itself, with the request's CORS headers: `X-Cache: BYPASS`,
    /// since it came from no cache (`reason` says why: the request, or the origin's failure).
    package static func error(
        _ error: GraphQLErrorResponse, client: ClientView, reason: BypassReason = .errorAnswer
    ) -> FlowReply {
        var response = error.response
        response.headers.add("X-Cache", XCache.bypass.headerValue)
        if !client.extraHeaders.fields.isEmpty { response.headers.fields += client.extraHeaders.fields }
        let event: RequestStatistics.APQEvent? =
            switch error.code {
            case GraphQLErrorResponse.persistedQueryNotFound.code: .notFound
            case GraphQLErrorResponse.hashMismatch.code: .hashMismatch
            default: nil
            }
        return FlowReply(
            response: response, cache: .bypass, bypassReason: reason, errorCode: error.code, apqEvent: event)
    }
}
