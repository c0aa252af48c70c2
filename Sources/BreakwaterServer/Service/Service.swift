// The running process: event loops, the servers on them, and a graceful stop on SIGTERM or
// SIGINT (stop accepting, let in-flight requests finish within the drain timeout, exit).

import BreakwaterCore
import CLibevent
import Foundation
import Logging
import Synchronization

/// Event loops plus the HTTP servers they run, until a stop signal drains them.
package final class Service: @unchecked Sendable {
    package let group: EventLoopGroup
    private var servers: [HTTPServer] = []
    /// The client-facing servers: a stop drains these, while the admin (health answers 503)
    /// and an embedded demo origin keep serving until the process exits.
    private var drainedServers: [HTTPServer] = []
    private let logger: Logger
    private let draining = DrainFlag()
    private var signalEvents: [OpaquePointer] = []
    private var drainTimeout = Duration.seconds(10)
    private var drainDeadline = ContinuousClock.now
    /// The drain found requests in flight at least once.
    private var drainWaited = false

    /// `threads` event loops (0 = one per core).
    package init(threads: Int, logger: Logger) {
        group = EventLoopGroup(count: threads)
        self.logger = logger
    }

    /// Whether a stop signal arrived and the service is finishing in-flight requests.
    package var isDraining: Bool { draining.value.load(ordering: .relaxed) }

    /// Serves `address` on every loop with the handlers `makeHandler` makes.
    @discardableResult
    package func addServer(
        address: HostPort, limits: HTTPLimits, makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) -> HTTPServer {
        let server = try HTTPServer(group: group, address: address, limits: limits, makeHandler: makeHandler)
        servers.append(server)
        return server
    }

    /// Serves the GraphQL proxy of `configuration` on `server.listen`, and its admin endpoints
    /// on `admin.listen`; returns both servers (for their bound ports).
    @discardableResult
    package func addProxy(configuration: Configuration) throws(ServerError) -> (proxy: HTTPServer, admin: HTTPServer) {
        let registry = try Self.makeRegistry(configuration, logger: logger)
        self.registry = registry
        let resolver = DocumentResolver(mode: configuration.persistedQueries.mode, registry: registry, hasher: OpenSSLSHA256())
        let documents = DocumentCache(capacity: max(1024, min(configuration.persistedQueries.maxEntries, 100_000)))
        let settings = ProxySettings(configuration: configuration, resolver: resolver, documents: documents)
        let cache = SharedCache(maxBytes: configuration.cache.maxBytes.bytes)
        let statistics = group.loops.map { _ in LoopStatistics() }
        var handlers: [ProxyHandler] = []
        let proxy = try addServer(address: configuration.server.listen, limits: try Self.limits(configuration)) {
            loop throws(ServerError) in
            let handler = try ProxyHandler(
                loop: loop, settings: settings, cache: cache, statistics: statistics[loop.index])
            handlers.append(handler)
            return handler
        }
        proxyHandlers = handlers
        proxyServer = proxy
        drainedServers.append(proxy)
        startupConfiguration = configuration
        let state = AdminState(
            cache: cache, registry: registry, statistics: statistics, started: .now,
            isDraining: { [draining] in draining.value.load(ordering: .relaxed) })
        let admin = AdminHandler(state: state, token: configuration.admin.token)
        let adminServer = try addServer(address: configuration.admin.listen, limits: HTTPLimits()) { _ in admin }
        return (proxy, adminServer)
    }

    /// The listener limits of `configuration`. evhttp's own limits sit at twice the configured
    /// ones, so that the endpoint answers 413 and 431 with GraphQL bodies; beyond twice, evhttp
    /// refuses by itself.
    private static func limits(_ configuration: Configuration) throws(ServerError) -> HTTPLimits {
        HTTPLimits(
            maxHeaderBytes: 2 * configuration.server.maxHeaderBytes.bytes,
            maxBodyBytes: 2 * configuration.server.maxBodyBytes.bytes,
            idleTimeout: configuration.server.idleTimeout,
            tls: try configuration.server.tls.map { tls throws(ServerError) in
                try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key)
            })
    }

    /// The persisted-query registry with its store and manifest loaded.
    private static func makeRegistry(_ configuration: Configuration, logger: Logger) throws(ServerError)
        -> PersistedQueryRegistry
    {
        let settings = configuration.persistedQueries
        let hasher = OpenSSLSHA256()
        do {
            let manifest = try settings.manifest.isEmpty
                ? nil : PersistedQueryManifest(path: settings.manifest, hasher: hasher)
            let store = try settings.store.isEmpty || settings.mode != .automatic
                ? nil : PersistedQueryStore(path: settings.store)
            let registry = try PersistedQueryRegistry(
                maxEntries: settings.maxEntries, store: store, manifest: manifest, hasher: hasher,
                mode: settings.mode, logger: logger)
            logger.info(
                "persisted queries loaded",
                metadata: ["mode": "\(settings.mode.rawValue)", "entries": "\(registry.entries)"])
            return registry
        } catch {
            throw .setup("\(error)")
        }
    }

    // MARK: - Reload

    private var proxyHandlers: [ProxyHandler] = []
    /// Flushed at exit: registrations are written behind the loops' backs.
    private var registry: PersistedQueryRegistry?
    private var proxyServer: HTTPServer?
    /// What the process started with: restart-only settings keep these values until a restart.
    private var startupConfiguration: Configuration?
    private var loadConfiguration: (@Sendable () throws -> Configuration)?

    /// Re-reads the configuration on SIGHUP through `load`.
    package func reloadOnHangup(_ load: @escaping @Sendable () throws -> Configuration) {
        loadConfiguration = load
    }

    /// Applies a re-read configuration to new requests on every loop, without dropping
    /// connections; a bad file is logged and the old configuration stays. Runs on loop 0.
    fileprivate func reload() {
        guard let loadConfiguration, let startup = startupConfiguration, let first = proxyHandlers.first else { return }
        let next: Configuration
        do {
            next = try loadConfiguration()
        } catch {
            logger.error("reload failed, keeping the running configuration: \(error)")
            return
        }
        for (setting, changed) in Self.restartOnlyChanges(from: startup, to: next) where changed {
            logger.warning("reload: \(setting) changed; it takes effect after a restart")
        }
        let settings = first.settings.reloaded(with: next)
        let limits: HTTPLimits
        do {
            limits = try Self.limits(next)
        } catch {
            logger.error("reload failed, keeping the running configuration: \(error)")
            return
        }
        for handler in proxyHandlers {
            handler.loop.execute { [logger] in
                do {
                    try handler.apply(settings)
                } catch {
                    logger.error("reload: loop \(handler.loop.index) keeps its origin: \(error)")
                }
            }
        }
        proxyServer?.updateLimits(limits)
        logger.notice("configuration reloaded")
    }

    private static func restartOnlyChanges(from a: Configuration, to b: Configuration) -> [(String, Bool)] {
        [
            ("server.listen", a.server.listen != b.server.listen),
            ("server.threads", a.server.threads != b.server.threads),
            ("server.tls", a.server.tls != b.server.tls),
            ("cache.max_bytes", a.cache.maxBytes != b.cache.maxBytes),
            ("persisted_queries", a.persistedQueries != b.persistedQueries),
            ("admin", a.admin != b.admin),
        ]
    }

    /// Runs every loop until SIGTERM or SIGINT has drained the servers; returns then.
    package func run(drainTimeout: Duration) {
        self.drainTimeout = drainTimeout
        let first = group.loops[0]
        let context = Unmanaged.passUnretained(self).toOpaque()
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            if let event = CLibevent_signal_new(first.base, signalNumber, serviceSignalCallback, context) {
                event_add(event, nil)
                signalEvents.append(event)
            }
        }
        group.start()
        group.wait()
        for event in signalEvents { event_free(event) }
        for server in servers { server.close() }
        registry?.flush()
    }

    fileprivate func signalled(_ signal: Int32) {
        if signal == SIGHUP { reload() } else { beginDrain(signal: signal) }
    }

    private func beginDrain(signal: Int32) {
        guard !draining.value.exchange(true, ordering: .relaxed) else {
            logger.warning("second stop signal: exiting without waiting", metadata: ["signal": "\(signal)"])
            group.loops.forEach { $0.stop() }
            return
        }
        logger.info("stopping: finishing in-flight requests", metadata: ["drain_timeout": "\(drainTimeout)"])
        for server in drainedServers { server.stopAccepting() }
        drainDeadline = .now + drainTimeout
        checkDrained()
    }

    private func checkDrained() {
        let inFlight = drainedServers.reduce(0) { $0 + $1.requestsInFlight }
        if inFlight == 0 || ContinuousClock.now >= drainDeadline {
            if inFlight > 0 { logger.warning("drain timeout: \(inFlight) requests still in flight") }
            // A reply counts as done once queued; give the loops a moment to write it out
            // (longer when the drain waited for requests, whose replies were just queued).
            let grace: Duration = drainWaited ? .milliseconds(100) : .milliseconds(10)
            group.loops[0].schedule(after: grace) { [group] in group.loops.forEach { $0.stop() } }
            return
        }
        drainWaited = true
        group.loops[0].schedule(after: .milliseconds(20)) { [self] in checkDrained() }
    }
}

private func serviceSignalCallback(_ signalNumber: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<Service>.fromOpaque(context).takeUnretainedValue().signalled(signalNumber)
}

/// Set once a stop signal arrived; read by the health endpoint.
final class DrainFlag: Sendable {
    let value = Atomic<Bool>(false)
}
