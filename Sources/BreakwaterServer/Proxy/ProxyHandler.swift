// The GraphQL listener of one event loop: asks the endpoint rules what a request gets, answers
// from the shared cache when it can, and otherwise fetches from the origin through the loop's
// pool: one fetch per key however many clients ask at once (SPEC section 5).

import BreakwaterCore

/// Serves client requests on one event loop.
final class ProxyHandler: HTTPHandler, @unchecked Sendable {
    private let endpoint: GraphQLEndpoint
    private let cache: SharedCache
    private let upstreamHeaders: UpstreamHeaders
    private let pool: OriginPool

    init(configuration: Configuration, endpoint: GraphQLEndpoint, cache: SharedCache, pool: OriginPool) {
        self.endpoint = endpoint
        self.cache = cache
        upstreamHeaders = UpstreamHeaders(forwardHeaders: configuration.origin.forwardHeaders)
        self.pool = pool
    }

    func handle(_ request: HTTPRequest, responder: any HTTPResponder) {
        switch endpoint.decide(request) {
        case .respond(let response):
            responder.respond(response)
        case .forward(let operation):
            serve(operation, for: request, responder: responder)
        }
    }

    private func serve(_ operation: PreparedOperation, for request: HTTPRequest, responder: any HTTPResponder) {
        let client = ClientView(request: request, operation: operation)
        let scopeMaterial: [UInt8]?
        switch cache.policy.scope(operationName: operation.operationName, kind: operation.kind, requestHeaders: request.headers) {
        case .bypass:
            return fetch(operation, for: request) { result in
                responder.respond(Self.answerWithoutStoring(result, client: client))
            }
        case .shared:
            scopeMaterial = nil
        case .perUser(let material):
            scopeMaterial = material
        }
        let key = cache.key(for: operation, scopeMaterial: scopeMaterial)
        switch cache.store.lookup(key, now: .now) {
        case .fresh(let entry, let age):
            responder.respond(CacheAnswer.fromEntry(entry, age: age, isFresh: true, client: client))
        case .stale(let entry, let age):
            responder.respond(CacheAnswer.fromEntry(entry, age: age, isFresh: false, client: client))
            if cache.inFlight.beginRefresh(key) == .startRefresh {
                fetchAndStore(key, operation, for: request, isPerUser: scopeMaterial != nil)
            }
        case .staleIfErrorOnly, .miss:
            if cache.inFlight.join(key, waiter: CacheWaiter(responder: responder, client: client)) == .startFetch {
                fetchAndStore(key, operation, for: request, isPerUser: scopeMaterial != nil)
            }
        }
    }

    /// Fetches once for every waiter of `key`, stores what the policy allows, answers them all.
    /// The fetch belongs to no client: a waiter that disconnects, the first included, cancels
    /// nothing.
    private func fetchAndStore(_ key: CacheKey, _ operation: PreparedOperation, for request: HTTPRequest, isPerUser: Bool) {
        let cache = self.cache
        fetch(operation, for: request) { result in
            let now = ContinuousClock.now
            let outcome: (ClientView) -> HTTPResponse
            switch result {
            case .response(let answer) where answer.status < 500:
                switch cache.policy.storage(of: answer, operationName: operation.operationName) {
                case .store(let ttl, let tags):
                    let entry = cache.makeEntry(
                        key: key, answer: answer, ttl: ttl, tags: tags, operation: operation, isPerUser: isPerUser,
                        now: now)
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
                waiter.responder.respond(outcome(waiter.client))
            }
        }
    }

    private static func answerWithoutStoring(_ result: OriginResult, client: ClientView) -> HTTPResponse {
        switch result {
        case .response(let answer): CacheAnswer.bypassed(answer, client: client)
        case .failure(let failure): CacheAnswer.failed(.originUnavailable(failure), client: client)
        }
    }

    private func fetch(_ operation: PreparedOperation, for request: HTTPRequest, completion: @escaping (OriginResult) -> Void) {
        var headers = upstreamHeaders.make(
            from: request.headers, remoteAddress: request.remoteAddress, isSecure: request.isSecure)
        if operation.origin.method == "GET" { headers.remove("Content-Type") }
        let upstream = UpstreamRequest(
            method: operation.origin.method, target: operation.origin.target, headers: headers,
            body: operation.origin.body)
        pool.send(upstream, completion: completion)
    }
}
