// One purge call in the queue's hands, from its first attempt to its last.

/// A call to a target: the request and how many times it was tried.
package struct CDNCall: Sendable, Equatable {
    /// Names the call when its answer comes back.
    package let id: Int
    package let request: CDNRequest
    /// 1 on the first attempt.
    package var attempt: Int
    /// When the current attempt was sent.
    package var sentAt: ContinuousClock.Instant
    /// Retried while a cache in front may still hold what it purges, past `cdn.retries`
    /// (`CDNBatch.keepTryingUntil`).
    package var keepTryingUntil: ContinuousClock.Instant?

    package init(
        id: Int, request: CDNRequest, attempt: Int, sentAt: ContinuousClock.Instant,
        keepTryingUntil: ContinuousClock.Instant? = nil
    ) {
        (self.id, self.request, self.attempt, self.sentAt) = (id, request, attempt, sentAt)
        self.keepTryingUntil = keepTryingUntil
    }

    /// Whether a failed attempt goes again at `now`: `retries` times, and beyond them for as
    /// long as a cache in front may hold what the call purges.
    package func triesAgain(after outcome: CDNCallOutcome, retries: Int, now: ContinuousClock.Instant) -> Bool {
        guard outcome.isRetryable else { return false }
        if attempt <= retries { return true }
        return keepTryingUntil.map { now < $0 } ?? false
    }
}

/// How one attempt ended.
package enum CDNCallOutcome: Sendable, Equatable {
    /// The target answered with this status.
    case answered(status: Int)
    /// No answer: refused, reset, TLS, timeout, malformed.
    case failed(String)

    /// 2xx: the target took the purge.
    package var succeeded: Bool {
        if case .answered(let status) = self { return (200..<300).contains(status) }
        return false
    }

    /// Worth another attempt: no answer, 429 (rate limited) or a 5xx. Another 4xx (a wrong token,
    /// an unknown service) would fail the same way again.
    package var isRetryable: Bool {
        switch self {
        case .failed: true
        case .answered(let status): status == 429 || status >= 500
        }
    }

    /// For `/stats` `last_error` and the warning log.
    package var errorText: String {
        switch self {
        case .answered(let status): "HTTP \(status)"
        case .failed(let reason): reason
        }
    }
}
