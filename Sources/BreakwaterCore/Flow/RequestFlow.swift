// The life of one client request (README "GraphQL over HTTP rules" and "The response cache") as a value: events in, steps out, and
// the server layer carries the steps out (send, look up a tier, fetch). Varnish lists its request
// steps once in cache_req_fsm.c; these are ours:
//
//   start ── check ──▶ reply (limits, route, method, preflight)
//     │ memo hit ─────────────────────────────────────────┐
//     ├─ parse ── resolve ──▶ reply (APQ table errors)     │
//     │             └─ unknown hash ──▶ lookupDocument ──▶ documentLookedUp
//     └─ prepare (+ register effect) ──────────────────────┤
//                                                          ▼
//   route: scope ── bypass ──▶ fetch (uncached, this client alone)
//            └─ key ── local lookup ── fresh ──▶ reply HIT
//                                    ├ stale ──▶ replyAndRefresh (STALE + one background fetch)
//                                    └ miss  ──▶ join (lead or wait for the key's fetch)
//
// What a fetch does (fleet tier, origin, store, stale-if-error) is `FetchFlow`.

/// One client request from arrival to the step that answers it.
package struct RequestFlow {
    /// What the server layer does next.
    package enum Step {
        /// Send this answer; the request is done.
        case reply(FlowReply)
        /// Ask the fleet registry for `digest`, then call `documentLookedUp`.
        case lookupDocument(SHA256Digest)
        /// Fetch for this client alone (nothing cached, nothing coalesced), then answer it with
        /// the `FetchOutcome`.
        case fetch(FetchPlan)
        /// A miss: join the fetch of `plan.key` (lead it if none runs); answered when it ends.
        case join(FetchPlan)
        /// Send the stale answer now, and refresh the entry with one background fetch.
        case replyAndRefresh(FlowReply, FetchPlan)
    }

    /// Work the server layer performs right after a step, before any answer is sent.
    package enum Effect: Equatable {
        /// Register a verified document in the local registry (persisted behind the loop's back)
        /// and, when `publish`, in the fleet registry.
        case register(ResolvedDocument, publish: Bool)
    }

    package let request: HTTPRequest
    private let environment: FlowEnvironment
    private let memo: OperationMemo?
    /// How answers to this request are dressed.
    package private(set) var client: ClientView
    /// The operation, once resolved.
    package private(set) var operation: PreparedOperation?
    /// The operation name and document hash the client asked for, once parsed: what the access
    /// log names when the operation never resolved (PersistedQueryNotFound, say).
    package private(set) var requested: (operationName: String?, digest: SHA256Digest?) = (nil, nil)
    private var pending: (request: GraphQLRequest, digest: SHA256Digest, memoKey: OperationMemo.Key?)?
    /// The request's trace when tracing export is on (docs/TRACING.md): a fetch it plans is a
    /// child of its span, and the cache key is noted there. Nil: the client's own `traceparent`,
    /// if any, is passed on as a child's by `UpstreamHeaders`, and nothing is recorded.
    package var trace: TracedRequest?
    private var effects: [Effect] = []

    /// A flow for `request`; `memo` is the receiving loop's (nil: parse every time).
    package init(request: HTTPRequest, environment: FlowEnvironment, memo: OperationMemo?) {
        self.request = request
        self.environment = environment
        self.memo = memo
        // Read from the request here, once: no placeholder to make, copy and replace in `start`.
        // Read through the environment, not bound: a local copy of either settings struct
        // retained and released each of its fields on every request.
        client = ClientView(
            request: request, corsHeaders: environment.endpoint.corsHeaders(for: request),
            vary: environment.responseVary, compressor: environment.compressor)
        client.sendsRemainingTTL = environment.sendsRemainingTTL
    }

    /// The effects produced by the last step, once.
    package mutating func takeEffects() -> [Effect] {
        defer { effects.removeAll() }
        return effects
    }

    /// The first step for the request.
    package mutating func start() -> Step {
        switch environment.endpoint.check(request) {
        case .preflight(let response)?: return .reply(FlowReply(response: response))
        case .error(let error)?: return .reply(.error(error, client: client))
        case nil: break
        }
        let memoKey = memo != nil ? OperationMemo.key(for: request) : nil
        if let memoKey, let known = memo?[memoKey] {
            // A registration request the memo knows must still register: the registry may have
            // evicted the document since (else clients loop on PersistedQueryNotFound).
            let document = known.operation.document
            if document.shouldRegister && environment.registry.document(for: document.digest) == nil {
                effects.append(.register(document, publish: true))
            }
            // No TTL-0 rule covers it: `prepared` remembers no such operation, and the memo is
            // emptied whenever the rules change (asking again cost a rule lookup per hit).
            return route(known.operation, knownKey: known.sharedCacheKey, memoKey: memoKey, hasZeroTTL: false)
        }
        do throws(GraphQLErrorResponse) {
            let graphQLRequest = try environment.endpoint.parse(request)
            requested.operationName = graphQLRequest.operationName
            switch try environment.endpoint.resolve(graphQLRequest) {
            case .document(let document):
                return try prepared(graphQLRequest, document: document, memoKey: memoKey)
            case .unknownHash(let digest):
                requested.digest = digest
                guard environment.sharesDocuments else { throw GraphQLErrorResponse.persistedQueryNotFound }
                pending = (graphQLRequest, digest, memoKey)
                return .lookupDocument(digest)
            }
        } catch {
            return .reply(.error(error, client: client))
        }
    }

    /// The fleet registry answered the `lookupDocument` step (nil: unknown or unreachable).
    package mutating func documentLookedUp(_ text: String?) -> Step {
        guard let pending else { preconditionFailure("documentLookedUp without lookupDocument") }
        self.pending = nil
        guard let text, let document = environment.endpoint.resolver.verified(text, for: pending.digest) else {
            return .reply(.error(.persistedQueryNotFound, client: client))
        }
        effects.append(.register(document, publish: false))
        do throws(GraphQLErrorResponse) {
            return try prepared(pending.request, document: document, memoKey: pending.memoKey)
        } catch {
            return .reply(.error(error, client: client))
        }
    }

    /// The operation is known: remember it, register its document if due, and route it.
    private mutating func prepared(
        _ graphQLRequest: GraphQLRequest, document: ResolvedDocument, memoKey: OperationMemo.Key?
    ) throws(GraphQLErrorResponse) -> Step {
        // A query under a TTL-0 rule is stored nowhere: it goes upstream as the client wrote it
        // (the client's own body, when plain), and its answer is relayed unparsed. Unless some
        // type is per-user: then even such an answer is read for its types (the bypass reason).
        let environment = environment
        let operation = try environment.endpoint.prepare(
            graphQLRequest, document: document, rewrites: environment.rewrites, clientBody: request.body,
            rewritesQuery: { !environment.hasZeroTTLRule($0) || environment.hasPerUserTypes })
        // Registered only once the operation is known to be usable (README "GraphQL over HTTP rules").
        if document.shouldRegister { effects.append(.register(document, publish: true)) }
        // Operations that never use the cache (a TTL-0 rule, mutations) are not remembered:
        // their requests differ in variables, so their entries would churn the memo (and its
        // wholesale resets would drop the popular hits' entries) for a parse that the origin
        // round trip they always make dwarfs.
        let hasZeroTTL = environment.hasZeroTTLRule(operation.operationName)
        var isMemoized = false
        if let memoKey, operation.kind == .query, !hasZeroTTL {
            isMemoized =
                memo?.remember(MemoizedOperation(operation: operation, sharedCacheKey: nil), for: memoKey) ?? false
        }
        // The key goes on only when the memo kept the operation: `route` records the cache key
        // there, a lookup that a request seen once would make in vain.
        return route(operation, knownKey: nil, memoKey: isMemoized ? memoKey : nil, hasZeroTTL: hasZeroTTL)
    }

    /// Scope, key and local lookup (README "The response cache" and docs/SECURITY.md).
    /// `hasZeroTTL`: whether a TTL-0 rule covers the operation, when the caller already asked.
    private mutating func route(
        _ operation: PreparedOperation, knownKey: CacheKey?, memoKey: OperationMemo.Key?, hasZeroTTL: Bool? = nil
    ) -> Step {
        self.operation = operation
        let scope: [UInt8]?
        let answersPerUserType =
            environment.perUserOperations?.contains(operation.document.digest, operationName: operation.operationName)
            ?? false
        switch environment.scope(
            operationName: operation.operationName, kind: operation.kind, requestHeaders: request.headers,
            answersPerUserType: answersPerUserType)
        {
        case .bypass(let reason):
            return .fetch(
                Self.plan(
                    operation, key: nil, bypass: reason, isPerUser: false, request: request, environment: environment,
                    trace: trace))
        case .shared:
            scope = nil
        case .perUser(let material):
            scope = material
        }
        // A rule with TTL 0 decides before the fetch that nothing will be stored (the rule wins
        // over the origin's Cache-Control, README "The response cache"): BYPASS, no key, no lookup, no
        // coalescing, like any other uncacheable request.
        if hasZeroTTL ?? environment.hasZeroTTLRule(operation.operationName) {
            return .fetch(
                Self.plan(
                    operation, key: nil, bypass: .zeroTTL, isPerUser: false, request: request, environment: environment,
                    trace: trace))
        }
        let varying = environment.keyedMaterial(request.headers)
        let key: CacheKey
        if scope == nil && varying == nil, let knownKey {
            key = knownKey
        } else {
            key = CacheKey.make(
                document: operation.document.digest, operationName: operation.operationName,
                canonicalVariables: JSONWriter.canonical(operation.variables ?? .object([])), scope: scope,
                varying: varying, hasher: environment.hasher)
            // Only the plain shared key is the same for every request with these raw parameters.
            if scope == nil && varying == nil, let memoKey { memo?[memoKey]?.sharedCacheKey = key }
        }
        switch environment.lookup(key) {
        case .fresh(let entry, let age):
            return .reply(
                FlowReply(response: ClientAnswer.fromEntry(entry, age: age, isFresh: true, client: client), cache: .hit))
        case .stale(let entry, let age):
            let reply = FlowReply(
                response: ClientAnswer.fromEntry(entry, age: age, isFresh: false, client: client), cache: .stale)
            trace?.cacheKey = key
            return .replyAndRefresh(
                reply,
                Self.plan(
                    operation, key: key, bypass: nil, isPerUser: scope != nil, request: request,
                    environment: environment, trace: trace))
        case .staleIfErrorOnly, .miss:
            trace?.cacheKey = key
            return .join(
                Self.plan(
                    operation, key: key, bypass: nil, isPerUser: scope != nil, request: request,
                    environment: environment, trace: trace))
        }
    }

    /// The fetch of `operation` for `request`, its upstream headers made from the request's
    /// (and, when tracing, naming a new origin fetch span in the request's `trace`). Made only
    /// when a fetch follows: a hit never needs one. Static, its parts passed in: a method of the
    /// flow called from `route` (mutating) copied the whole flow for the call.
    private static func plan(
        _ operation: PreparedOperation, key: CacheKey?, bypass: BypassReason?, isPerUser: Bool, request: HTTPRequest,
        environment: FlowEnvironment, trace: TracedRequest?
    ) -> FetchPlan {
        let fetchTrace = trace?.fetch(ids: environment.upstreamHeaders.ids)
        let headers = environment.upstreamHeaders.make(
            from: request.headers, requestID: request.identity?.id, remoteAddress: request.remoteAddress,
            isSecure: request.isSecure, sendsBody: operation.origin.method != "GET", trace: fetchTrace?.originContext)
        return FetchPlan(
            key: key, bypass: bypass, operation: operation, isPerUser: isPerUser, upstreamHeaders: headers,
            trace: fetchTrace)
    }
}
