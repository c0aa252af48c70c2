// What came back over the upstream hop: one request sent by Breakwater's HTTP client (to the
// origin, or to a CDN's purge API), before any GraphQL rule reads it. `OriginOutcome` is the
// origin's result classified for the flow; `FetchOutcome` the end of a fetch; `FlowReply` the
// answer on the client hop.

/// The upstream server's answer, or why there was none.
package enum UpstreamResult: Sendable {
    case response(HTTPResponse)
    case failure(OriginFailure)
}

/// Why the origin gave no usable answer; maps to 502 or 504 (README, "The origin side").
package enum OriginFailure: Sendable, Equatable, Error {
    /// No connection could be made: refused, no route, the name did not resolve.
    case refused(String)
    /// The connection was reset, or closed before a whole response arrived.
    case unreachable(String)
    /// The TLS handshake or a TLS record with the origin failed.
    case tls(String)
    /// No answer within `origin.timeout`.
    case timeout
    /// A response that could not be parsed, or was too large.
    case malformed(String)

    package var status: Int {
        if case .timeout = self { return 504 }
        return 502
    }

    /// What went wrong, as the failure said it; nil for a timeout, which the caller names by its
    /// own deadline (`origin.timeout`, `cdn.timeout`).
    package var detail: String? {
        switch self {
        case .refused(let text), .unreachable(let text), .tls(let text), .malformed(let text): text
        case .timeout: nil
        }
    }

    /// The `reason` label this failure is counted under.
    package var reason: UpstreamErrorReason {
        switch self {
        case .refused: .refused
        case .unreachable: .reset
        case .tls: .tls
        case .timeout: .timeout
        case .malformed: .malformed
        }
    }
}

/// Why an origin fetch failed, as `breakwater_upstream_errors_total{reason}` names it: a closed
/// set, so every series exists from the start.
package enum UpstreamErrorReason: String, Sendable, CaseIterable {
    case refused
    case reset
    case timeout
    case tls
    case malformed
    /// The origin answered with a 5xx status.
    case serverError = "5xx"

    /// `allCases` made once: the synthesized property builds a new array on every read.
    package static let ordered = allCases
}
