// The cache state every event loop shares: the store, the fetches in flight, the policy.

import BreakwaterCore

/// A client waiting for a fetch in flight: answered on its own loop (responders hop there).
struct CacheWaiter: Sendable {
    let responder: any HTTPResponder
    let client: ClientView
}

/// The response cache as the proxy uses it (SPEC section 5).
final class SharedCache: Sendable {
    let store: ResponseStore
    let inFlight = InFlightTable<CacheKey, CacheWaiter>()
    let policy: CachePolicy
    let settings: Configuration.Cache
    let hasher = OpenSSLSHA256()

    init(settings: Configuration.Cache) {
        store = ResponseStore(maxBytes: settings.maxBytes.bytes)
        policy = CachePolicy(settings)
        self.settings = settings
    }

    /// The key of `operation` in `scope` (per-user material is hashed into it). Absent variables
    /// and `{}` are one and the same.
    func key(for operation: PreparedOperation, scopeMaterial: [UInt8]?) -> CacheKey {
        CacheKey.make(
            document: operation.document.digest, operationName: operation.operationName,
            canonicalVariables: JSONWriter.canonical(operation.variables ?? .object([])),
            scope: scopeMaterial, hasher: hasher)
    }

    /// A new entry for an origin answer the policy allows storing.
    func makeEntry(
        key: CacheKey, answer: HTTPResponse, ttl: Duration, tags: [String], operation: PreparedOperation,
        isPerUser: Bool, now: ContinuousClock.Instant
    ) -> CacheEntry {
        CacheEntry(
            key: key, body: answer.body, contentType: answer.headers["Content-Type"] ?? "application/json",
            etag: CacheEntry.makeETag(body: answer.body, hasher: hasher), storedAt: now, ttl: ttl,
            staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            documentDigest: operation.document.digest, operationName: operation.operationName, tags: tags,
            isPerUser: isPerUser)
    }
}
