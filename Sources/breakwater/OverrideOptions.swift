// Flags that override config.yaml (README.md, "Running it in front of your origin").

import ArgumentParser
import BreakwaterCore

/// Command-line overrides of configuration settings.
struct OverrideOptions: ParsableArguments {
    @Option(help: "Address for GraphQL clients, HOST:PORT (server.listen).")
    var listen: String?

    @Option(help: "URL of the GraphQL origin (origin.url).")
    var origin: String?

    @Option(help: "Event loops, 0 = one per core (server.threads).")
    var threads: Int?

    @Option(name: .customLong("admin-listen"), help: "Address of the admin endpoints, HOST:PORT (admin.listen).")
    var adminListen: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String?

    /// `configuration` with every given flag applied; a bad value is a usage error.
    func apply(to configuration: Configuration) throws -> Configuration {
        var configuration = configuration
        if let listen { configuration.server.listen = try Self.address(listen, flag: "--listen") }
        if let origin {
            guard let url = OriginURL(parsing: origin) else {
                throw ValidationError("--origin: expected an http:// or https:// URL, got \"\(origin)\"")
            }
            configuration.origin.url = url
        }
        if let threads {
            guard threads >= 0 else { throw ValidationError("--threads: must be 0 or more") }
            configuration.server.threads = threads
        }
        if let adminListen { configuration.admin.listen = try Self.address(adminListen, flag: "--admin-listen") }
        if let logLevel {
            guard let level = Configuration.LogLevel(rawValue: logLevel.lowercased()) else {
                throw ValidationError("--log-level: expected one of trace, debug, info, notice, warning, error, critical")
            }
            configuration.logging.level = level
        }
        return configuration
    }

    private static func address(_ value: String, flag: String) throws -> HostPort {
        guard let address = HostPort(parsing: value) else {
            throw ValidationError("\(flag): expected HOST:PORT, got \"\(value)\"")
        }
        return address
    }
}
