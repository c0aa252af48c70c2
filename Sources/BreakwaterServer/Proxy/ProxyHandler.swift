// The GraphQL listener of one event loop: asks the endpoint rules what a request gets, answers
// from the shared cache when it can, and otherwise fetches from the origin through the loop's
// pool: one fetch per key however many clients ask at once (SPEC section 5).

import BreakwaterCore

/// Serves client requests on one event loop. Its settings and pool are replaced on its own
/// loop when the configuration is reloaded.
final class ProxyHandler: HTTPHandler, @unchecked Sendable {
    let loop: EventLoop
    private(set) var settings: ProxySettings
    private var pool: OriginPool
    private let cache: SharedCache
    let statistics: LoopStatistics
    /// Requests this loop already resolved: repeated ones skip parsing (a popular hit).
    private let memo = OperationMemo()

    init(loop: EventLoop, settings: ProxySettings, cache: SharedCache, statistics: LoopStatistics) throws(ServerError) {
        self.loop = loop
        self.settings = settings
        pool = try settings.makePool(loop: loop)
        self.cache = cache
        self.statistics = statistics
    }

    /// Takes new settings for the requests that arrive from now on; call on this loop.
    func apply(_ settings: ProxySettings) throws(ServerError) {
        if settings.configuration.origin != self.settings.configuration.origin {
            pool = try settings.makePool(loop: loop)
        }
        self.settings = settings
        memo.removeAll()
    }

    func handle(_ request: HTTPRequest, responder: any HTTPResponder) {
        let started = ContinuousClock.now
        let (decision, memoKey, knownKey) = settings.endpoint.decide(request, memo: memo)
        switch decision {
        case .respond(let response, let apqEvent):
            if let apqEvent { statistics.record { $0.recordAPQ(apqEvent) } }
            context(for: request, responder: responder, started: started, operation: nil).finish(response)
        case .forward(let operation):
            let context = context(for: request, responder: responder, started: started, operation: operation)
            serve(operation, context: context, request: request, memoKey: memoKey, knownKey: knownKey)
        }
    }

    private func context(
        for request: HTTPRequest, responder: any HTTPResponder, started: ContinuousClock.Instant,
        operation: PreparedOperation?
    ) -> RequestContext {
        RequestContext(
            responder: responder,
            client: operation.map { ClientView(request: request, operation: $0) }
                ?? ClientView(isGET: request.method == "GET", ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:]),
            started: started, method: request.method.token, operationName: operation?.operationName,
            documentHash: operation?.document.digest, statistics: statistics, accessLog: settings.accessLog)
    }

    private func serve(
        _ operation: PreparedOperation, context: RequestContext, request: HTTPRequest, memoKey: OperationMemo.Key?,
        knownKey: CacheKey?
    ) {
        let scopeMaterial: [UInt8]?
        switch settings.policy.scope(operationName: operation.operationName, kind: operation.kind, requestHeaders: request.headers) {
        case .bypass:
            let invalidates = operation.kind == .mutation && settings.configuration.cache.invalidateOnMutation
            let store = cache.store
            return fetch(operation, for: request) { result, upstream in
                if invalidates, case .response(let answer) = result {
                    for tag in MutationInvalidation.tags(in: answer) {
                        store.purge(.tag(tag), soft: false, now: .now)
                    }
                }
                context.finish(Self.answerWithoutStoring(result, client: context.client), upstream: upstream)
            }
        case .shared:
            scopeMaterial = nil
        case .perUser(let material):
            scopeMaterial = material
        }
        let key = cacheKey(for: operation, scopeMaterial: scopeMaterial, memoKey: memoKey, known: knownKey)
        switch cache.store.lookup(key, now: .now) {
        case .fresh(let entry, let age):
            context.finish(CacheAnswer.fromEntry(entry, age: age, isFresh: true, client: context.client))
        case .stale(let entry, let age):
            context.finish(CacheAnswer.fromEntry(entry, age: age, isFresh: false, client: context.client))
            if cache.inFlight.beginRefresh(key) == .startRefresh {
                fetchAndStore(key, operation, for: request, isPerUser: scopeMaterial != nil)
            }
        case .staleIfErrorOnly, .miss:
            if cache.inFlight.join(key, waiter: context) == .startFetch {
                fetchAndStore(key, operation, for: request, isPerUser: scopeMaterial != nil)
            }
        }
    }

    /// The cache key of `operation`. A shared-scope key is computed once per distinct request and
    /// kept in the memo (`known` is what the memo held); a per-user key depends on the headers.
    private func cacheKey(
        for operation: PreparedOperation, scopeMaterial: [UInt8]?, memoKey: OperationMemo.Key?, known: CacheKey?
    ) -> CacheKey {
        guard scopeMaterial == nil else { return cache.key(for: operation, scopeMaterial: scopeMaterial) }
        if let known { return known }
        let key = cache.key(for: operation, scopeMaterial: nil)
        if let memoKey { memo[memoKey]?.sharedCacheKey = key }
        return key
    }

    /// Fetches once for every waiter of `key`, stores what the policy allows, answers them all.
    /// The fetch belongs to no client: a waiter that disconnects, the first included, cancels
    /// nothing.
    private func fetchAndStore(_ key: CacheKey, _ operation: PreparedOperation, for request: HTTPRequest, isPerUser: Bool) {
        let cache = self.cache
        let settings = self.settings
        fetch(operation, for: request) { result, upstream in
            let now = ContinuousClock.now
            let outcome: (ClientView) -> HTTPResponse
            switch result {
            case .response(let answer) where answer.status < 500:
                switch settings.policy.storage(of: answer, operationName: operation.operationName) {
                case .store(let ttl, let tags):
                    let entry = cache.makeEntry(
                        key: key, answer: answer, ttl: ttl, tags: tags, operation: operation, isPerUser: isPerUser,
                        settings: settings.configuration.cache, now: now)
                    cache.store.store(entry, now: now)
                    outcome = { CacheAnswer.stored(entry, client: $0) }
                case .doNotStore:
                    outcome = { Self.answerWithoutStoring(result, client: $0) }
                }
            default:
                // Origin failure or 5xx: an entry within stale_if_error is served instead.
                if let fallback = cache.store.lookup(key, now: now).entry {
                    let age = now - fallback.storedAt
                    outcome = { CacheAnswer.fromEntry(fallback, age: age, isFresh: false, client: $0) }
                } else {
                    outcome = { Self.answerWithoutStoring(result, client: $0) }
                }
            }
            for waiter in cache.inFlight.complete(key) {
                waiter.finish(outcome(waiter.client), upstream: upstream)
            }
        }
    }

    private static func answerWithoutStoring(_ result: OriginResult, client: ClientView) -> HTTPResponse {
        switch result {
        case .response(let answer): CacheAnswer.bypassed(answer, client: client)
        case .failure(let failure): CacheAnswer.failed(.originUnavailable(failure), client: client)
        }
    }

    /// Sends `operation` to the origin through this loop's pool and counts the upstream request.
    private func fetch(
        _ operation: PreparedOperation, for request: HTTPRequest,
        completion: @escaping (OriginResult, Duration) -> Void
    ) {
        var headers = settings.upstreamHeaders.make(
            from: request.headers, remoteAddress: request.remoteAddress, isSecure: request.isSecure)
        if operation.origin.method == "GET" { headers.remove("Content-Type") }
        let upstream = UpstreamRequest(
            method: operation.origin.method, target: operation.origin.target, headers: headers,
            body: operation.origin.body)
        let started = ContinuousClock.now
        let statistics = self.statistics
        pool.send(upstream) { result in
            let duration = ContinuousClock.now - started
            statistics.record { $0.recordUpstream(duration: duration, outcome: Self.upstreamOutcome(result)) }
            completion(result, duration)
        }
    }

    private static func upstreamOutcome(_ result: OriginResult) -> RequestStatistics.UpstreamOutcome {
        switch result {
        case .response(let answer): answer.status >= 500 ? .failed : .answered
        case .failure(.timeout): .timedOut
        case .failure: .failed
        }
    }
}
