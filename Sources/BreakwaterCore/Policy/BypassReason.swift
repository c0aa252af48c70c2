// Why a request or response goes past the cache: the words an operator reads in logs.

/// Why an answer is not served from, or not stored in, the cache (`X-Cache: BYPASS`).
///
/// Raw values are kebab-case, as they appear in logs and metrics labels.
package enum BypassReason: String, Sendable, Equatable, CaseIterable {
    /// A mutation or subscription: only queries are cached.
    case notAQuery = "not-a-query"
    /// The request carries a private header (`cache.private_headers`) and its rule is not per-user.
    case privateRequest = "private-request"
    /// The origin answered with a status other than 200.
    case originStatus = "origin-status"
    /// The origin's answer is not a JSON object with a JSON Content-Type.
    case notJSON = "not-json"
    /// The answer has a top-level `errors` member.
    case graphQLErrors = "graphql-errors"
    /// The origin set a cookie, which must reach only the client that caused it.
    case setCookie = "set-cookie"
    /// The origin said `Cache-Control: no-store`.
    case originNoStore = "origin-no-store"
    /// The origin said `Cache-Control: private`.
    case originPrivate = "origin-private"
    /// The effective TTL is zero.
    case zeroTTL = "zero-ttl"
    /// The origin's `Vary` names `*`, a private header, or a forwarded header the key does not hold.
    case originVary = "origin-vary"
    /// The answer is larger than one entry may be (`cache.max_bytes` and its shards).
    case tooLarge = "too-large"
    /// A type in the answer has `ttl: 0` (`cache.types`).
    case typeTTL = "type-ttl"
    /// A type in the answer is per-user (`cache.types`) and the request was keyed for everybody;
    /// its operation is keyed per user from now on.
    case perUserType = "per-user-type"
    /// Breakwater answered with an error of its own before any cache lookup or fetch (a 400,
    /// a 405, an unknown persisted query...).
    case errorAnswer = "error-answer"
    /// The origin failed or answered 5xx and no stale entry could stand in.
    case originFailure = "origin-failure"
    /// A type of `cache.types` is per-user and the document was not checked against the origin's
    /// schema (none known, a field it lacks), so the answer's types are unseen: not stored.
    case unverifiedTypes = "unverified-types"
    /// A purge that reaches the answer was applied while it was fetched: the answer may hold
    /// what the purge removed, so it is not stored (each waiter fetches again for itself).
    case purgedWhileFetched = "purged-while-fetched"

    /// `allCases` made once: the synthesized property builds a new array on every read.
    package static let ordered = allCases
}
