// `breakwater run`: serve with config.yaml.

import ArgumentParser
import BreakwaterCore
import BreakwaterServer
import BreakwaterService
import Logging

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve with config.yaml (the default command).")

    @Option(help: "Path of the configuration file (default ./config.yaml; optional when --origin is given).")
    var config: String?

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
        let service: Service
        let servers: ProxyStack
        do {
            service = try Service(threads: settings.server.threads, logger: logger)
            servers = try service.addProxy(configuration: settings)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        // Before the loops start: /readyz cannot answer 200 until the cache is back.
        servers.loadSnapshot()
        LogSetup.backend?.attach(servers.accessLog)
        let scheme = settings.server.tls == nil ? "http" : "https"
        Console.ready(
            "listening on \(scheme)://\(settings.server.listen.withPort(servers.proxyServer.port))\(settings.server.graphqlPath)")
        Console.ready("admin listening on http://\(settings.admin.listen.withPort(servers.adminServer.port))")
        Console.ready("origin \(settings.origin.url)")
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
        service.run()
        logger.info("stopped")
    }
}
