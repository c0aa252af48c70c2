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
    private let logger: Logger
    private let draining = Atomic<Bool>(false)
    private var signalEvents: [OpaquePointer] = []
    private var drainTimeout = Duration.seconds(10)
    private var drainDeadline = ContinuousClock.now

    /// `threads` event loops (0 = one per core).
    package init(threads: Int, logger: Logger) {
        group = EventLoopGroup(count: threads)
        self.logger = logger
    }

    /// Whether a stop signal arrived and the service is finishing in-flight requests.
    package var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Serves `address` on every loop with the handlers `makeHandler` makes.
    @discardableResult
    package func addServer(
        address: HostPort, limits: HTTPLimits, makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) -> HTTPServer {
        let server = try HTTPServer(group: group, address: address, limits: limits, makeHandler: makeHandler)
        servers.append(server)
        return server
    }

    /// Serves the GraphQL proxy of `configuration` on `server.listen`.
    @discardableResult
    package func addProxy(configuration: Configuration) throws(ServerError) -> HTTPServer {
        // evhttp's own limits sit at twice the configured ones, so that the endpoint answers
        // 413 and 431 with GraphQL bodies; beyond twice, evhttp refuses by itself.
        let limits = HTTPLimits(
            maxHeaderBytes: 2 * configuration.server.maxHeaderBytes.bytes,
            maxBodyBytes: 2 * configuration.server.maxBodyBytes.bytes,
            idleTimeout: configuration.server.idleTimeout,
            tls: try configuration.server.tls.map { tls throws(ServerError) in
                try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key)
            })
        let endpoint = try Self.makeEndpoint(configuration, logger: logger)
        let cache = SharedCache(settings: configuration.cache)
        return try addServer(address: configuration.server.listen, limits: limits) { loop throws(ServerError) in
            let pool = try OriginPool(
                loop: loop, origin: configuration.origin.url, timeout: configuration.origin.timeout,
                maxConnections: configuration.origin.maxConnections, tlsVerify: configuration.origin.tlsVerify)
            return ProxyHandler(configuration: configuration, endpoint: endpoint, cache: cache, pool: pool)
        }
    }

    /// The endpoint rules with their shared state: the persisted-query registry (store and
    /// manifest loaded) and the parsed-document cache.
    private static func makeEndpoint(_ configuration: Configuration, logger: Logger) throws(ServerError)
        -> GraphQLEndpoint
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
            let resolver = DocumentResolver(mode: settings.mode, registry: registry, hasher: hasher)
            logger.info(
                "persisted queries loaded",
                metadata: ["mode": "\(settings.mode.rawValue)", "entries": "\(registry.entries)"])
            return GraphQLEndpoint(
                configuration: configuration, resolver: resolver,
                documents: DocumentCache(capacity: max(1024, min(settings.maxEntries, 100_000))))
        } catch {
            throw .setup("\(error)")
        }
    }

    /// Runs every loop until SIGTERM or SIGINT has drained the servers; returns then.
    package func run(drainTimeout: Duration) {
        self.drainTimeout = drainTimeout
        let first = group.loops[0]
        let context = Unmanaged.passUnretained(self).toOpaque()
        for signalNumber in [SIGTERM, SIGINT] {
            if let event = CLibevent_signal_new(first.base, signalNumber, serviceSignalCallback, context) {
                event_add(event, nil)
                signalEvents.append(event)
            }
        }
        group.start()
        group.wait()
        for event in signalEvents { event_free(event) }
        for server in servers { server.close() }
    }

    fileprivate func beginDrain(signal: Int32) {
        guard !draining.exchange(true, ordering: .relaxed) else {
            logger.warning("second stop signal: exiting without waiting", metadata: ["signal": "\(signal)"])
            group.loops.forEach { $0.stop() }
            return
        }
        logger.info("stopping: finishing in-flight requests", metadata: ["drain_timeout": "\(drainTimeout)"])
        for server in servers { server.stopAccepting() }
        drainDeadline = .now + drainTimeout
        checkDrained()
    }

    private func checkDrained() {
        let inFlight = servers.reduce(0) { $0 + $1.requestsInFlight }
        if inFlight == 0 || ContinuousClock.now >= drainDeadline {
            if inFlight > 0 { logger.warning("drain timeout: \(inFlight) requests still in flight") }
            group.loops.forEach { $0.stop() }
            return
        }
        group.loops[0].schedule(after: .milliseconds(20)) { [self] in checkDrained() }
    }
}

private func serviceSignalCallback(_ signalNumber: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<Service>.fromOpaque(context).takeUnretainedValue().beginDrain(signal: signalNumber)
}
