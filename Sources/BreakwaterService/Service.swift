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
    /// The drain found requests in flight at least once.
    private var drainWaited = false
    private var stopping = false

    // Reload state: touched only on loop 0 (signals are delivered there).
    private var proxy: ProxyStack?
    private var running: Configuration?
    private var loadConfiguration: (@Sendable () throws -> Configuration)?
    private var applyOutsideProxy: (@Sendable (Configuration) -> Void)?

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
    package func addProxy(configuration: Configuration) throws(ServerError) -> ProxyStack {
        let stack = try ProxyStack(group: group, configuration: configuration, readiness: readiness, logger: logger)
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
    package func run(drainTimeout: Duration? = nil) {
        if let drainTimeout { stopTimes.drainTimeout = drainTimeout }
        group.start()
        group.wait()
        proxy?.writeSnapshot().log(logger)
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

    private func beginDrain() {
        guard !stopping else { return }
        stopping = true
        logger.notice("draining: stopped accepting, finishing in-flight requests")
        for server in drainedServers { server.stopAccepting() }
        drainDeadline = .now + stopTimes.drainTimeout
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
