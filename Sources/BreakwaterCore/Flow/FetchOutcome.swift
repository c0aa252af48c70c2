// How a finished fetch ends for the clients that waited on it: each gets the same outcome,
// dressed for its own request (its CORS headers, If-None-Match, Accept).

/// The end of one fetch.
package enum FetchOutcome: Sendable {
    /// Fetched and stored: `MISS` (also for waiters of a coalesced fetch).
    case stored(CacheEntry, originStatus: Int)
    /// Found in the fleet's fleet tier, fresh: `HIT`.
    case fleetHit(CacheEntry, age: Duration)
    /// Fetched and not stored: `BYPASS`, with why.
    case bypassed(HTTPResponse, BypassReason)
    /// The origin failed and a stale entry stands in: `STALE`.
    case staleFallback(CacheEntry, age: Duration, originStatus: Int?)
    /// The origin failed and nothing can stand in: its 5xx relayed, or 502/504.
    case failed(OriginOutcome)

    /// The `X-Cache` this outcome answers with.
    package var cache: XCache {
        switch self {
        case .stored: .miss
        case .fleetHit: .hit
        case .bypassed, .failed: .bypass
        case .staleFallback: .stale
        }
    }

    /// Why the answer bypassed the cache, as its reply says (`reply(for:).bypassReason`).
    package var bypassReason: BypassReason? {
        switch self {
        case .bypassed(_, let reason): reason
        case .failed(.answered): .originStatus
        case .failed: .originFailure
        case .stored, .fleetHit, .staleFallback: nil
        }
    }

    /// The origin's status when it answered, else the 502 or 504 Breakwater answers in its place.
    package var originStatus: Int {
        switch self {
        case .stored(_, let status): status
        case .fleetHit: 200
        case .bypassed(let response, _): response.status
        case .staleFallback(_, _, let status): status ?? 502
        case .failed(.failed(let failure)): failure.status
        case .failed(let outcome): outcome.status ?? 502
        }
    }

    /// The reply one waiting client gets.
    package func reply(for client: ClientView) -> FlowReply {
        switch self {
        case .stored(let entry, let status):
            FlowReply(response: ClientAnswer.stored(entry, client: client), cache: .miss, originStatus: status)
        case .fleetHit(let entry, let age):
            FlowReply(response: ClientAnswer.fromEntry(entry, age: age, isFresh: true, client: client), cache: .hit)
        case .bypassed(let response, let reason):
            FlowReply(
                response: ClientAnswer.bypassed(response, client: client), cache: .bypass, bypassReason: reason,
                originStatus: response.status)
        case .staleFallback(let entry, let age, let status):
            FlowReply(
                response: ClientAnswer.fromEntry(entry, age: age, isFresh: false, client: client), cache: .stale,
                originStatus: status)
        case .failed(.serverError(let response)):
            // A 502 made from an error page, or the origin's GraphQL error body as sent: either
            // way the answer counts as ORIGIN_ERROR (docs/OPERATING.md, the access log).
            FlowReply(
                response: ClientAnswer.bypassed(response, client: client), cache: .bypass,
                bypassReason: .originFailure, errorCode: GraphQLErrorResponse.originErrorCode,
                originStatus: response.status)
        case .failed(.failed(let failure)):
            .error(.originUnavailable(failure), client: client, reason: .originFailure)
        case .failed(.answered(let response)):
            // Not a failure; kept total so the switch needs no trap.
            FlowReply(
                response: ClientAnswer.bypassed(response, client: client), cache: .bypass, bypassReason: .originStatus,
                originStatus: response.status)
        }
    }
}
