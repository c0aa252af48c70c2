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

    /// The usual content types as string literals, which take no memory per entry.
    private static func interned(_ contentType: String?) -> String {
        switch contentType {
        case nil, "application/json": "application/json"
        case "application/json; charset=utf-8": "application/json; charset=utf-8"
        case "application/graphql-response+json": "application/graphql-response+json"
        case let other?: other
        }
    }

    /// A new entry for an origin answer the policy allows storing.
    func makeEntry(
        key: CacheKey, answer: HTTPResponse, ttl: Duration, tags: [String], operation: PreparedOperation,
        isPerUser: Bool, settings: Configuration.Cache, now: ContinuousClock.Instant
    ) -> CacheEntry {
        CacheEntry(
            key: key, body: answer.body, contentType: Self.interned(answer.headers["Content-Type"]),
            etag: CacheEntry.makeETag(body: answer.body, hasher: hasher), storedAt: now, ttl: ttl,
            staleWhileRevalidate: settings.staleWhileRevalidate, staleIfError: settings.staleIfError,
            documentDigest: operation.document.digest, operationName: operation.operationName, tags: tags,
            isPerUser: isPerUser)
    }
}
