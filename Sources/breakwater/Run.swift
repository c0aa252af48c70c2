// `breakwater run`: serve with config.yaml.

import ArgumentParser
import BreakwaterCore
import BreakwaterServer
import BreakwaterService
import Logging

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve with config.yaml (the default command).")

    @Option(help: "Path of the configuration file.")
    var config = "./config.yaml"

    @OptionGroup var overrides: OverrideOptions

    func run() throws {
        let settings = try overrides.apply(to: ConfigurationFile.load(config))
        let logger = LogSetup.bootstrap(level: settings.logging.level)
        let service = Service(threads: settings.server.threads, logger: logger)
        let servers: ProxyStack
        do {
            servers = try service.addProxy(configuration: settings)
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        let scheme = settings.server.tls == nil ? "http" : "https"
        Console.ready(
            "listening on \(scheme)://\(settings.server.listen.withPort(servers.proxyServer.port))\(settings.server.graphqlPath)")
        Console.ready("admin listening on http://\(settings.admin.listen.withPort(servers.adminServer.port))")
        Console.ready("origin \(settings.origin.url)")
        let path = config, overrides = self.overrides
        service.reloadOnHangup { try overrides.apply(to: ConfigurationLoader.load(path: path)) }
        service.run()
        logger.info("stopped")
    }
}
