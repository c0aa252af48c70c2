// The one rule for who may receive an answer (docs/SECURITY.md "What is shared"): an answer
// reaches a request other than the one it was fetched for (a coalesced waiter, a later hit) only
// when the storage decision says it may be shared under the key. Everything else goes to its
// fetcher alone; the other waiters fetch for themselves (Varnish's hit-for-miss).

/// Whether the end of one fetch may be handed to every waiter of its key.
public enum AnswerSharing: Sendable, Equatable {
    /// Every waiter may have it: a stored entry, or an answer public by every sign.
    case shared
    /// Only the request it was fetched for; the others fetch for themselves. `remember`: the
    /// answer says something about the key itself (private, `no-store`, `Set-Cookie`, a per-user
    /// type, a `Vary` the key cannot hold), so the key is remembered for a while and later misses
    /// fetch at once instead of queueing behind one fetch each time.
    case fetcherOnly(remember: Bool)

    /// The sharing of `outcome`.
    package init(_ outcome: FetchOutcome) {
        switch outcome {
        case .stored, .fleetHit, .staleFallback:
            // An entry stored under the key: by definition shared under it.
            self = .shared
        case .failed(.failed):
            // Breakwater's own 502/504: it holds nothing of the origin's.
            self = .shared
        case .failed(.serverError), .failed(.answered):
            // The origin's own body, which the storage decision did not let into the cache.
            self = .fetcherOnly(remember: false)
        case .bypassed(_, let reason):
            self = Self(reason)
        }
    }

    /// The sharing of an answer not stored for `reason`.
    package init(_ reason: BypassReason) {
        switch reason {
        case .tooLarge, .zeroTTL, .typeTTL:
            // Public by every sign; only its size or its lifetime keeps it out of the store.
            self = .shared
        case .setCookie, .originNoStore, .originPrivate, .originVary, .perUserType, .unverifiedTypes:
            self = .fetcherOnly(remember: true)
        case .originStatus, .notJSON, .graphQLErrors, .originFailure, .notAQuery, .privateRequest, .errorAnswer,
            .purgedWhileFetched:
            // Errors may name the user; they say nothing lasting about the key.
            self = .fetcherOnly(remember: false)
        }
    }

    /// Whether the answer may reach requests other than its fetcher.
    public var isShared: Bool { self == .shared }
}
