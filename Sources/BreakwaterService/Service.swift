// The running process: event loops, the servers on them, SIGHUP reload, and a graceful stop on
// SIGTERM or SIGINT (readiness off at once, serve on for `server.shutdown_delay`, stop accepting,
// let in-flight requests finish within `server.drain_timeout`, exit).

import BreakwaterCore
import BreakwaterServer
import Logging

/// Event loops plus the HTTP servers they run, until a stop signal drains them.
package final class Service: @unchecked Sendable {
    package let group: EventLoopGroup
    /// Cleared when a stop signal arrives; `/readyz` reads it.
    package let readiness = Readiness()
    private var servers: [HTTPServer] = []
    /// The client-facing servers: a stop drains these, while the admin (`/readyz` answers 503)
    /// and an embedded demo origin keep serving until the process exits.
    private var drainedServers: [HTTPServer] = []
    private let logger: Logger
    private var signals: SignalWatcher?
    private var stopTimes = StopTimes(shutdownDelay: .zero, drainTimeout: .seconds(10))
    private var drainDeadline = ContinuousClock.now
    private var stopping = false
    /// A new process took the listening sockets over: what is queued on them is its to accept.
    private var handedOver = false

    // Reload state: touched only on loop 0 (signals are delivered there).
    private var proxy: ProxyStack?
    private var running: Configuration?
    private var loadConfiguration: (@Sendable () throws -> Configuration)?
    private var applyOutsideProxy: (@Sendable (Configuration) -> Void)?

    // Takeover (Service+Takeover.swift, docs/OPERATING.md "Restarts and upgrades").
    /// Runs in this process just before it hands its listening sockets to a new one, on the
    /// handover's own thread while the loops serve on: write the cache snapshot here.
    package var beforeHandover: (@Sendable () -> Void)?

    /// `threads` event loops (0 = one per core). Stop and reload signals are caught from here
    /// on, so one that arrives before `run` is acted on once the loops run, never fatal; call
    /// `Service.blockProcessSignals()` first thing in `main`, before any thread starts.
    package init(threads: Int, logger: Logger) throws(SystemError) {
        group = try EventLoopGroup(count: threads)
        self.logger = logger
        let first = group.loops[0]
        signals = SignalWatcher { [weak self] signal in
            guard let service = self else { return }
            first.execute { service.signalled(signal) }
        }
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and every thread it starts, so
    /// that only the service's watcher takes them.
    package static func blockProcessSignals() {
        SignalWatcher.blockProcessSignals()
    }

    /// Serves `address` on every loop with the handlers `makeHandler` makes; never drained.
    @discardableResult
    package func addServer(
        address: HostPort, limits: HTTPLimits, makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) -> HTTPServer {
        let server = try HTTPServer(group: group, address: address, limits: limits, makeHandler: makeHandler)
        servers.append(server)
        return server
    }

    /// Serves the GraphQL proxy of `configuration` on `server.listen`, and its admin endpoints
    /// on `admin.listen`; the stop timings come from it too.
    @discardableResult
    package func addProxy(
        configuration: Configuration, inherited: InheritedListeners = InheritedListeners()
    ) throws(ServerError) -> ProxyStack {
        let stack = try ProxyStack(
            group: group, configuration: configuration, readiness: readiness, logger: logger, inherited: inherited)
        servers += [stack.proxyServer, stack.adminServer]
        drainedServers.append(stack.proxyServer)
        proxy = stack
        running = configuration
        stopTimes = StopTimes(configuration.server)
        return stack
    }

    /// Re-reads the configuration on SIGHUP through `load`; `applyOutsideProxy` then gets the
    /// applied configuration for what lives outside the proxy (logging).
    package func reloadOnHangup(
        _ load: @escaping @Sendable () throws -> Configuration,
        applyOutsideProxy: (@Sendable (Configuration) -> Void)? = nil
    ) {
        loadConfiguration = load
        self.applyOutsideProxy = applyOutsideProxy
    }

    /// Runs every loop until SIGTERM or SIGINT has drained the servers; returns then.
    /// `drainTimeout` applies when no proxy was added (the demo origin alone).
    /// `started` runs on the calling thread once the loops run and returns once the ready lines
    /// are written (flushed): `/readyz` answers 200 only after it returned, so a script that
    /// waits for it finds them.
    package func run(drainTimeout: Duration? = nil, started: () -> Void = {}) {
        if let drainTimeout { stopTimes.drainTimeout = drainTimeout }
        group.start()
        started()
        readiness.markStarted()
        group.wait()
        // After a handover the snapshot was written for the new process, which has loaded it.
        if !handedOver { proxy?.writeSnapshot().log(logger) }
        for server in servers { server.close() }
        proxy?.flush()
    }

    private func signalled(_ signal: SignalWatcher.Signal) {
        switch signal {
        case .hangup: reload()
        case .terminate, .interrupt: beginStop(signal)
        }
    }

    // MARK: - Reload

    /// Applies a re-read configuration to new requests on every loop, without dropping
    /// connections; a bad file is logged and the old configuration stays. Runs on loop 0.
    private func reload() {
        guard let loadConfiguration, let running else { return }
        let next: Configuration
        do {
            next = try loadConfiguration()
        } catch {
            // Counted before it is logged: whoever reads the line finds it in /metrics already.
            proxy?.recordReload(succeeded: false)
            logger.error("reload failed, keeping the running configuration: \(error)")
            return
        }
        let applied = running.reloadable(from: next)
        do {
            try proxy?.apply(applied)
        } catch {
            // Counted before it is logged: whoever reads the line finds it in /metrics already.
            proxy?.recordReload(succeeded: false)
            logger.error("reload failed, keeping the running configuration: \(error)")
            return
        }
        proxy?.recordReload(succeeded: true)
        for key in running.restartOnlyChanges(to: next) {
            logger.warning("reload: \(key) changed; it takes effect after a restart", metadata: ["key": "\(key)"])
        }
        self.running = applied
        stopTimes = StopTimes(applied.server)
        applyOutsideProxy?(applied)
        logger.notice("configuration reloaded")
    }

    // MARK: - Stop

    /// A new process serves the listening sockets now: stop exactly as on SIGTERM.
    package func stopAfterHandover(to pid: Int32) {
        group.loops[0].execute { [self] in
            logger.notice("takeover: pid \(pid) is ready; stopping as on SIGTERM", metadata: ["takeover.pid": "\(pid)"])
            // The admin socket is the new process's too: its /readyz answers from now on.
            handedOver = true
            proxy?.adminServer.stopAccepting(handingOver: true)
            beginStop(.terminate)
        }
    }

    private func beginStop(_ signal: SignalWatcher.Signal) {
        guard readiness.beginStopping() else {
            logger.warning("second stop signal: exiting without waiting", metadata: ["signal": "\(signal)"])
            group.loops.forEach { $0.stop() }
            return
        }
        let delay = stopTimes.shutdownDelay
        logger.notice(
            "stopping: /readyz answers 503; serving on for shutdown_delay, then draining",
            metadata: [
                "signal": "\(signal)", "shutdown_delay_s": .stringConvertible(delay),
                "drain_timeout_s": .stringConvertible(stopTimes.drainTimeout),
            ])
        if delay > .zero {
            group.loops[0].schedule(after: delay) { [self] in beginDrain() }
        } else {
            beginDrain()
        }
    }

    /// Stops accepting, tells every open connection to finish what it took and close
    /// (docs/OPERATING.md, "Stopping: the drain"), and waits for that within `drain_timeout`. On loop 0.
    private func beginDrain() {
        guard !stopping else { return }
        stopping = true
        logger.notice("draining: stopped accepting, finishing in-flight requests")
        for server in drainedServers { server.stopAccepting(handingOver: handedOver) }
        drainDeadline = .now + stopTimes.drainTimeout
        checkDrained()
    }

    /// The loops stop once no request is in flight and every connection told to finish has
    /// closed (its answers written, its lingering close over), or at the drain's deadline.
    private func checkDrained() {
        let requests = drainedServers.reduce(0) { $0 + $1.requestsInFlight }
        let connections = drainedServers.reduce(0) { $0 + $1.connectionsClosing }
        if requests + connections == 0 || ContinuousClock.now >= drainDeadline {
            if requests + connections > 0 {
                logger.warning(
                    "drain timeout: \(requests) requests still in flight, \(connections) connections still closing",
                    metadata: [
                        "requests": .stringConvertible(requests), "connections": .stringConvertible(connections),
                    ])
            }
            group.loops.forEach { $0.stop() }
            return
        }
        group.loops[0].schedule(after: .milliseconds(10)) { [self] in checkDrained() }
    }
}

/// The two durations of a stop, from `server`: serve on while deregistered, then drain.
private struct StopTimes {
    var shutdownDelay: Duration
    var drainTimeout: Duration

    init(shutdownDelay: Duration, drainTimeout: Duration) {
        self.shutdownDelay = shutdownDelay
        self.drainTimeout = drainTimeout
    }

    init(_ server: Configuration.Server) {
        self.init(shutdownDelay: server.shutdownDelay, drainTimeout: server.drainTimeout)
    }
}
