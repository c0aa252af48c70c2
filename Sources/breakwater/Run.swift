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
        let settings = try overrides.apply(to: path.map(ConfigurationFile.load) ?? Configuration())
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
        LogSetup.backend?.attach(servers.accessLog)
        let scheme = settings.server.tls == nil ? "http" : "https"
        Console.ready(
            "listening on \(scheme)://\(settings.server.listen.withPort(servers.proxyServer.port))\(settings.server.graphqlPath)")
        Console.ready("admin listening on http://\(settings.admin.listen.withPort(servers.adminServer.port))")
        Console.ready("origin \(settings.origin.url)")
        let overrides = self.overrides
        service.reloadOnHangup {
            try overrides.apply(to: path.map { try ConfigurationLoader.load(path: $0) } ?? Configuration())
        } applyOutsideProxy: { configuration in
            LogSetup.backend?.apply(configuration.logging)
        }
        service.run()
        logger.info("stopped")
    }
}
