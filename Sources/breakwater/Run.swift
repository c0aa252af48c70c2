// `breakwater run`: serve with config.yaml.

import ArgumentParser
import BreakwaterCore
import BreakwaterServer
import BreakwaterService
import Foundation
import Logging

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve with config.yaml (the default command).")

    @Option(help: "Path of the configuration file (default ./config.yaml; optional when --origin is given).")
    var config: String?

    @Option(
        help: ArgumentHelp(
            "Take over the listening sockets of the Breakwater process whose admin.handover_socket is this path; it drains and exits once this one is ready.",
            valueName: "path"))
    var takeover: String?

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        Service.blockProcessSignals()
        let path = ConfigurationFile.path(explicit: config, originGiven: overrides.origin != nil)
        let loaded = try path.map { try ConfigurationFile.load($0, logFormatted: true) } ?? ConfigurationFile.builtIn()
        let settings: Configuration
        do {
            settings = try overrides.apply(to: loaded.configuration)
        } catch {
            // A bad flag is a start-up error too: one JSON line when the file asks for JSON
            // (in text format the usual usage message follows).
            guard loaded.configuration.logging.format == .json else { throw error }
            Console.startError("\(error)", format: .json)
            throw ExitCode.validationFailure
        }
        // The files it writes are opened before anything serves: a log that cannot be written
        // must stop the start, not be lost quietly.
        let problems = settings.writtenFileProblems(in: loaded.source)
        guard problems.isEmpty else {
            for problem in problems { Console.problem(problem, level: "error", format: settings.logging.format) }
            throw ExitCode(2)
        }
        let logger = LogSetup.bootstrap(settings.logging)
        defer { LogSetup.flush() }
        // Listening sockets from a running process (a takeover) or from systemd, else bound here.
        let handover = HandoverSlot()
        let handoverPath = settings.admin.handoverSocket
        let received: Takeover?
        let inherited: InheritedListeners?
        do {
            // The handover socket first: a process already serving there is told before anything binds.
            if takeover == nil && !handoverPath.isEmpty {
                handover.listener = try HandoverListener(path: handoverPath, logger: logger)
            }
            received = try takeover.map { path throws(TakeoverError) in try Takeover.receive(from: path) }
            inherited = try received?.listeners ?? InheritedSockets.activated()
        } catch let error as TakeoverError {
            logger.critical("takeover refused: \(error)")
            throw ExitCode(1)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        let service: Service
        let servers: ProxyStack
        do {
            service = try Service(threads: settings.server.threads, logger: logger)
            servers = try service.addProxy(configuration: settings, inherited: inherited ?? InheritedListeners())
        } catch {
            handover.listener?.close()
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        if let inherited, received == nil {
            logger.notice(
                "serving \(inherited.all.count) listening sockets from systemd",
                metadata: ["listeners.graphql": "\(inherited.graphql.count)", "listeners.admin": "\(inherited.admin.count)"])
        }
        // Before the loops start: /readyz cannot answer 200 until the cache is back. A takeover's
        // previous process wrote its snapshot before it sent the sockets received above.
        servers.loadSnapshot()
        service.beforeHandover = { servers.writeSnapshot().log(logger) }
        if let received {
            service.completeTakeover(received, stack: servers, handoverPath: handoverPath, logger: logger) {
                handover.listener = $0
            }
        } else if let listener = handover.listener {
            service.offerHandover(on: listener, of: servers)
        }
        LogSetup.backend?.attach(servers.accessLog)
        let overrides = self.overrides
        service.reloadOnHangup {
            let loaded = try path.map { try ConfigurationLoader.read(path: $0) } ?? ConfigurationFile.builtIn()
            let next = try overrides.apply(to: loaded.configuration)
            // The access log is reopened on reload: one that cannot be keeps the running settings.
            let problems = next.accessLogProblems(in: loaded.source)
            guard problems.isEmpty else { throw ConfigurationError(problems: problems) }
            return next
        } applyOutsideProxy: { configuration in
            LogSetup.backend?.apply(configuration.logging)
        }
        service.run {
            servers.awaitSchemaBeforeReady(settings.origin, logger: logger)
            let scheme = settings.server.tls == nil ? "http" : "https"
            Console.ready(
                "listening on \(scheme)://\(settings.server.listen.withPort(servers.proxyServer.port))\(settings.server.graphqlPath)")
            Console.ready("admin listening on http://\(settings.admin.listen.withPort(servers.adminServer.port))")
            Console.ready("origin \(settings.origin.url)")
            // `/readyz` answers 200 once these lines are written: a script that waits for it
            // then finds them in the log.
            LogSetup.flush()
        }
        handover.listener?.close()
        // The stop line is the last: every line before it (the drain's access lines included) is
        // written first, and it is written as the process exits (the deferred flush).
        LogSetup.flush()
        logger.notice("stopped")
    }
}

/// The handover socket this process offers, once it has one (a takeover makes it late, on
/// another thread).
private final class HandoverSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var current: HandoverListener?

    var listener: HandoverListener? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
