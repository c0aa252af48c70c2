// The operators' endpoints on `admin.listen` (SPEC section 6): stats, metrics, dashboard,
// purge, health. Never reachable through the GraphQL listener.

import BreakwaterCore
import Foundation

/// What the admin endpoints read: the proxy's shared state and every loop's statistics.
final class AdminState: Sendable {
    let cache: SharedCache
    let registry: PersistedQueryRegistry
    let statistics: [LoopStatistics]
    let started: ContinuousClock.Instant
    let isDraining: @Sendable () -> Bool

    init(
        cache: SharedCache, registry: PersistedQueryRegistry, statistics: [LoopStatistics],
        started: ContinuousClock.Instant, isDraining: @escaping @Sendable () -> Bool
    ) {
        self.cache = cache
        self.registry = registry
        self.statistics = statistics
        self.started = started
        self.isDraining = isDraining
    }

    /// Every figure at this moment: the loops' statistics summed, the store's and registry's counts.
    func report() -> StatsReport {
        var merged = RequestStatistics()
        for loop in statistics { merged.merge(loop.snapshot) }
        return StatsReport(
            uptime: .now - started, requests: merged, cache: cache.store.statistics,
            apqEntries: registry.entries, apqRegistered: registry.registered, coalesced: cache.inFlight.coalesced)
    }
}

/// Routes admin requests. GETs are open; with `admin.token` set, POSTs need the Bearer token.
final class AdminHandler: HTTPHandler, Sendable {
    private let state: AdminState
    private let token: String

    init(state: AdminState, token: String) {
        self.state = state
        self.token = token
    }

    func handle(_ request: HTTPRequest, responder: any HTTPResponder) {
        responder.respond(answer(request))
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/stats"):
            return HTTPResponse(status: 200, headers: Self.headers("application/json"), body: state.report().json())
        case ("GET", "/metrics"):
            return HTTPResponse(
                status: 200, headers: Self.headers("text/plain; version=0.0.4; charset=utf-8"),
                body: state.report().prometheus())
        case ("GET", "/"):
            return HTTPResponse(status: 200, headers: Self.headers("text/html; charset=utf-8"), body: DashboardPage.html)
        case ("GET", "/healthz"):
            return state.isDraining()
                ? HTTPResponse(status: 503, headers: Self.headers("text/plain"), body: "draining\n")
                : HTTPResponse(status: 200, headers: Self.headers("text/plain"), body: "ok\n")
        case ("POST", "/purge"):
            if let refusal = authorize(request) { return refusal }
            do {
                let purge = try PurgeRequest.parse(request.body)
                let count = state.cache.purger.purge(purge)
                return HTTPResponse(status: 200, headers: Self.headers("application/json"), body: "{\"purged\":\(count)}")
            } catch {
                return error.response
            }
        case (_, "/stats"), (_, "/metrics"), (_, "/"), (_, "/healthz"):
            return GraphQLErrorResponse(
                status: 405, message: "Use GET.", code: "METHOD_NOT_ALLOWED", headers: ["Allow": "GET"]
            ).response
        case (_, "/purge"):
            return GraphQLErrorResponse(
                status: 405, message: "Use POST.", code: "METHOD_NOT_ALLOWED", headers: ["Allow": "POST"]
            ).response
        default:
            return GraphQLErrorResponse(
                status: 404, message: "No admin endpoint at \(request.path).", code: "NOT_FOUND"
            ).response
        }
    }

    /// Nil when the request may POST; else 401 (no credentials) or 403 (wrong token).
    private func authorize(_ request: HTTPRequest) -> HTTPResponse? {
        guard !token.isEmpty else { return nil }
        guard let authorization = request.headers["Authorization"] else {
            return GraphQLErrorResponse(
                status: 401, message: "This endpoint needs Authorization: Bearer <admin.token>.", code: "UNAUTHENTICATED",
                headers: ["WWW-Authenticate": "Bearer"]
            ).response
        }
        guard Self.constantTimeEquals(authorization, "Bearer " + token) else {
            return GraphQLErrorResponse(status: 403, message: "Wrong admin token.", code: "FORBIDDEN").response
        }
        return nil
    }

    /// Compares without an early exit, so timing does not reveal how much of a guess was right.
    private static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<min(x.count, y.count) { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    private static func headers(_ contentType: String) -> HTTPHeaders {
        ["Content-Type": contentType, "Cache-Control": "no-store"]
    }
}
