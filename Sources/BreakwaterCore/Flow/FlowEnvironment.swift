// Everything the request flow reads to decide: the endpoint rules, the cache policy, the local
// store, the clock, and which fleet tiers exist. Replaced as a whole when SIGHUP reloads.

/// The settings and shared state a `RequestFlow` and a `FetchFlow` decide with; a class, so that
/// every flow (and every copy of one) holds it with one reference, not a copy of each field.
package final class FlowEnvironment: Sendable {
    package let endpoint: GraphQLEndpoint
    package let policy: CachePolicy
    package let store: any ResponseStoring
    package let upstreamHeaders: UpstreamHeaders
    package let hasher: any SHA256Hashing
    package let clock: any FlowClock
    /// A fleet registry exists: an unknown hash is looked up there before PersistedQueryNotFound.
    package let sharesDocuments: Bool
    /// A shared response tier exists: a local miss is looked up there before the origin.
    package let sharesResponses: Bool
    /// How long another proxy's fetch may hold the fleet-wide lease (`origin.timeout`).
    package let originTimeout: Duration
    /// The origin's schema and the documents rewritten for it (`entity_tags: auto`); nil: documents
    /// go upstream as sent.
    package let rewrites: DocumentRewrites?
    /// Operations seen answering a per-user type (`cache.types`); nil when no type is per-user.
    package let perUserOperations: PerUserOperations?
    /// gzips answers from the cache for clients that accept it; nil when `server.compression` is off.
    package let compressor: (any BodyCompressing)?
    /// The `Vary` of answers from the cache: the policy's, plus `Accept-Encoding` with compression.
    package let responseVary: ResponseVary
    /// `cache.downstream_age: remaining`.
    package let sendsRemainingTTL: Bool
    /// Some type of `cache.types` is per-user (`policy.hasPerUserTypes`, read once).
    package let hasPerUserTypes: Bool
    /// A schema is expected (`origin.schema` auto or a file, `cache.entity_tags: auto`): answers
    /// to documents not checked against one are marked `EntityTags.unchecked`.
    package let expectsSchema: Bool

    package init(
        endpoint: GraphQLEndpoint, policy: CachePolicy, store: any ResponseStoring, upstreamHeaders: UpstreamHeaders,
        hasher: any SHA256Hashing, clock: any FlowClock, sharesDocuments: Bool = false,
        sharesResponses: Bool = false, originTimeout: Duration = .seconds(10), rewrites: DocumentRewrites? = nil,
        perUserOperations: PerUserOperations? = nil, compressor: (any BodyCompressing)? = nil,
        expectsSchema: Bool = false
    ) {
        self.expectsSchema = expectsSchema && rewrites != nil
        self.endpoint = endpoint
        self.policy = policy
        self.store = store
        self.upstreamHeaders = upstreamHeaders
        self.hasher = hasher
        self.clock = clock
        self.sharesDocuments = sharesDocuments
        self.sharesResponses = sharesResponses
        self.originTimeout = originTimeout
        self.rewrites = rewrites
        self.perUserOperations = policy.hasPerUserTypes ? perUserOperations : nil
        self.compressor = compressor
        responseVary = ResponseVary(policy.keyedHeaders.responseVary + (compressor == nil ? "" : ", Accept-Encoding"))
        sendsRemainingTTL = policy.settings.downstreamAge == .remaining
        hasPerUserTypes = policy.hasPerUserTypes
    }

    /// The registry the endpoint resolves documents in.
    package var registry: any DocumentRegistry { endpoint.resolver.registry }

    // The policy's decisions the flows take on every request, asked here: called on
    // `environment.policy` from a flow, each made a copy of the whole policy first (a retain
    // and a release of its every field), where a method of this class reads its own constant.

    /// `policy.scope(...)`.
    package func scope(
        operationName: String?, kind: OperationKind, requestHeaders: HTTPHeaders, answersPerUserType: Bool
    ) -> CacheScopeDecision {
        policy.scope(
            operationName: operationName, kind: kind, requestHeaders: requestHeaders,
            answersPerUserType: answersPerUserType)
    }

    /// Whether a rule with TTL 0 covers `operationName` (`policy.rule(for:)`).
    /// The keyed request headers' part of a cache key (`KeyedHeaders.material`).
    package func keyedMaterial(_ requestHeaders: HTTPHeaders) -> [UInt8]? {
        policy.keyedHeaders.material(requestHeaders)
    }

    /// The local store's entry for `key` as of the clock's now.
    package func lookup(_ key: CacheKey) -> CacheLookup {
        store.lookup(key, now: clock.now)
    }

    package func hasZeroTTLRule(_ operationName: String?) -> Bool {
        policy.rule(for: operationName)?.ttl == .zero
    }

    /// `policy.storage(...)`.
    package func storage(
        of response: HTTPResponse, operationName: String?, stripped: StrippedAnswer? = nil, isPerUser: Bool = false,
        showsTypes: Bool = true
    ) -> StorageDecision {
        policy.storage(
            of: response, operationName: operationName, stripped: stripped, isPerUser: isPerUser, showsTypes: showsTypes)
    }
}
