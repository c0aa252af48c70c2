// The one classification of what came back from the origin (README, "The origin side"): an answer the
// cache policy judges, a 5xx, or no answer at all. Stale-if-error, the relay of errors and the
// upstream statistics all read this, so "the origin failed" is decided here only.

/// What one origin exchange produced.
package enum OriginOutcome: Sendable {
    /// An answer below 500: relayed, and stored if the policy allows.
    case answered(HTTPResponse)
    /// A 5xx: a GraphQL JSON error body is relayed as sent, any other becomes 502.
    case serverError(HTTPResponse)
    /// No usable answer: refused, reset, truncated, malformed (502) or too slow (504).
    case failed(OriginFailure)

    package init(_ result: UpstreamResult) {
        switch result {
        case .response(let response) where response.status >= 500: self = .serverError(response)
        case .response(let response): self = .answered(response)
        case .failure(let failure): self = .failed(failure)
        }
    }

    /// Whether a stale entry may stand in (stale-if-error) and the exchange counts as an error.
    package var isFailure: Bool {
        if case .answered = self { return false }
        return true
    }

    /// Why the exchange counts as an upstream error; nil for an answer below 500.
    package var errorReason: UpstreamErrorReason? {
        switch self {
        case .answered: nil
        case .serverError: .serverError
        case .failed(let failure): failure.reason
        }
    }

    /// The origin's status, when it answered at all.
    package var status: Int? {
        switch self {
        case .answered(let response), .serverError(let response): response.status
        case .failed: nil
        }
    }
}
