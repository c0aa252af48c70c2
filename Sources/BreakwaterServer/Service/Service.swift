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
        let limits = HTTPLimits(
            maxHeaderBytes: configuration.server.maxHeaderBytes.bytes,
            maxBodyBytes: configuration.server.maxBodyBytes.bytes,
            idleTimeout: configuration.server.idleTimeout,
            tls: try configuration.server.tls.map { tls throws(ServerError) in
                try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key)
            })
        return try addServer(address: configuration.server.listen, limits: limits) { loop throws(ServerError) in
            let pool = try OriginPool(
                loop: loop, origin: configuration.origin.url, timeout: configuration.origin.timeout,
                maxConnections: configuration.origin.maxConnections, tlsVerify: configuration.origin.tlsVerify)
            return ProxyHandler(configuration: configuration, pool: pool)
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
