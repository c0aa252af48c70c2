// The operators' endpoints on `admin.listen` (README, "Watching it: the admin endpoints"): stats, metrics, dashboard,
// purge, health, readiness. Never reachable through the GraphQL listener.

import BreakwaterCore
import Foundation
import Logging
import Synchronization

/// What the admin endpoints read: the proxy's shared state and every loop's statistics.
final class AdminState: Sendable {
    let cache: ProcessCache
    let registry: PersistedQueryRegistry
    let statistics: [LoopStatistics]
    let started: ContinuousClock.Instant
    let readiness: Readiness
    private let process = ProcessSampler()
    /// The configuration reloads the service ran.
    let reloads = ConfigReloadCounter()
    /// The Redis fleet tier, for the `redis` figures.
    let redis: RedisFleet?
    /// The CDN purger, for the `cdn` figures.
    let cdn: CDNPurger?
    /// The span exporter, for the `tracing` figures.
    let traces: TraceExporter?

    init(
        cache: ProcessCache, registry: PersistedQueryRegistry, statistics: [LoopStatistics],
        started: ContinuousClock.Instant, readiness: Readiness, redis: RedisFleet? = nil, cdn: CDNPurger? = nil,
        traces: TraceExporter? = nil
    ) {
        self.redis = redis
        self.cdn = cdn
        self.traces = traces
        self.cache = cache
        self.registry = registry
        self.statistics = statistics
        self.started = started
        self.readiness = readiness
    }

    /// Every figure at this moment: the loops' statistics summed, the store's and registry's
    /// counts, the process's resource use.
    func report(configuredOperations: Set<String> = []) -> StatsReport {
        var merged = RequestStatistics()
        for loop in statistics { merged.merge(loop.snapshot) }
        var report = StatsReport(
            uptime: .now - started, requests: merged, cache: cache.store.statistics,
            apqEntries: registry.entries, apqRegistered: registry.registered, coalesced: cache.inFlight.coalesced,
            process: process.sample(), configuredOperations: configuredOperations, configReloads: reloads.snapshot)
        report.freshness = cache.freshness.report()
        report.cancelledFetches = cache.inFlight.cancelled
        report.snapshot = cache.snapshotFigures.withLock { $0 }
        report.tracing = traces?.figures
        return report
    }
}

/// The reloadable part of the admin endpoints: the POST token, the accepted Host names, and the
/// operation names `/metrics` always labels (those of `cache.rules`).
package struct AdminSettings: Sendable, Equatable {
    package var token: String
    package var hosts: AdminHostPolicy
    package var configuredOperations: Set<String>

    package init(_ configuration: Configuration) {
        token = configuration.admin.token
        hosts = AdminHostPolicy(allowedHosts: configuration.admin.allowedHosts)
        configuredOperations = Set(configuration.cache.rules.map(\.operation))
    }
}

/// Routes admin requests. GETs (and HEADs) are open to allowed Hosts; POSTs need a JSON body and,
/// with `admin.token` set, the Bearer token.
final class AdminHandler: HTTPHandler, Sendable {
    private let state: AdminState
    private let access: Mutex<AdminSettings>
    private let logger: Logger

    init(state: AdminState, access: AdminSettings, logger: Logger) {
        self.state = state
        self.access = Mutex(access)
        self.logger = logger
    }

    /// Takes reloaded settings for the next requests.
    func update(_ access: AdminSettings) {
        self.access.withLock { $0 = access }
    }

    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        guard request.method == .head else {
            responder.respond(answer(request))
            return
        }
        // HEAD: the GET answer; the HTTP engine sends its head (Content-Length included), not its body.
        var get = copy request
        get.method = .get
        let response = answer(get)
        responder.respond(response.status == 405 ? answer(request) : response)
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        let access = self.access.withLock { $0 }
        // Every path but the probes, which answer any Host (a load balancer probes by address).
        if !access.hosts.allows(request.headers["Host"], path: request.path) {
            return GraphQLErrorResponse(
                status: 403, message: "The admin listener answers only loopback Host names and admin.allowed_hosts.",
                code: "FORBIDDEN_HOST"
            ).response
        }
        switch (request.method, request.path) {
        case (.get, "/stats"):
            let json = StatsReport.appendingCDN(state.cdn?.status ?? [], to: state.report().json(redis: state.redis?.status))
            return HTTPResponse(status: 200, headers: Self.headers("application/json"), body: json)
        case (.get, "/metrics"):
            return HTTPResponse(
                status: 200, headers: Self.headers("text/plain; version=0.0.4; charset=utf-8"),
                body: StatsReport.appendingCDN(
                    state.cdn?.status ?? [],
                    to: state.report(configuredOperations: access.configuredOperations).prometheus(
                        redis: state.redis?.status)))
        case (.get, "/"):
            return HTTPResponse(status: 200, headers: Self.headers("text/html; charset=utf-8"), body: DashboardPage.html)
        case (.get, "/healthz"):
            // Liveness: the process serves, draining or not.
            return HTTPResponse(status: 200, headers: Self.headers("text/plain"), body: "ok\n")
        case (.get, "/readyz"):
            if state.readiness.isReady {
                return HTTPResponse(status: 200, headers: Self.headers("text/plain"), body: "ready\n")
            }
            let reason = state.readiness.isStopping ? "stopping\n" : "starting\n"
            return HTTPResponse(status: 503, headers: Self.headers("text/plain"), body: reason)
        case (.post, "/purge"):
            if let refusal = authorize(request, token: access.token) { return refusal }
            return purge(request)
        case (_, "/stats"), (_, "/metrics"), (_, "/"), (_, "/healthz"), (_, "/readyz"):
            return GraphQLErrorResponse(
                status: 405, message: "Use GET or HEAD.", code: "METHOD_NOT_ALLOWED", headers: ["Allow": "GET, HEAD"]
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

    private func purge(_ request: HTTPRequest) -> HTTPResponse {
        do {
            let purge = try PurgeRequest.parse(request.body)
            let count = state.cache.purger.purge(purge)
            logger.notice(
                "purge",
                metadata: [
                    "client": "\(request.remoteAddress)", "what": "\(purge.selector.logText)",
                    "soft": .stringConvertible(purge.soft), "purged": .stringConvertible(count),
                ])
            return HTTPResponse(status: 200, headers: Self.headers("application/json"), body: "{\"purged\":\(count)}")
        } catch {
            return error.response
        }
    }

    /// Nil when the request may POST; else 415 (not JSON), 401 (no credentials) or 403 (wrong token).
    private func authorize(_ request: HTTPRequest, token: String) -> HTTPResponse? {
        // A browser can send text/plain cross-site without a preflight; JSON it cannot.
        guard MediaType.isJSON(request.headers["Content-Type"]) else {
            return GraphQLErrorResponse(
                status: 415, message: "Admin POSTs need Content-Type: application/json.",
                code: "UNSUPPORTED_MEDIA_TYPE"
            ).response
        }
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

extension PurgeSelector {
    /// What a purge reached, for the log line every purge writes: `all`, `operation:Name`,
    /// `hash:<hex>`, `tag:Launch:92`.
    fileprivate var logText: String {
        switch self {
        case .all: "all"
        case .operation(let name): "operation:\(name)"
        case .document(let digest): "hash:\(digest.hex)"
        case .tag(let tag): "tag:\(tag)"
        }
    }
}
