// The cache state every event loop shares: the store, the fetches in flight, the policy.

import BreakwaterCore

/// The response cache as the proxy uses it (SPEC section 5).
final class SharedCache: Sendable {
    let store: ResponseStore
    /// Clients waiting for a fetch in flight, answered on their own loops (responders hop there).
    let inFlight = InFlightTable<CacheKey, RequestContext>()
    let hasher = OpenSSLSHA256()

    init(maxBytes: Int) {
        store = ResponseStore(maxBytes: maxBytes)
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
        isPerUser: Bool, settings: Configuration.Cache, now: ContinuousClock.Instant
    ) -> CacheEntry {
        CacheEntry(
            key: key, body: answer.body, contentType: answer.headers["Content-Type"] ?? "application/json",
            etag: CacheEntry.makeETag(body: answer.body, hasher: hasher), storedAt: now, ttl: ttl,
            staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            documentDigest: operation.document.digest, operationName: operation.operationName, tags: tags,
            isPerUser: isPerUser)
    }
}
