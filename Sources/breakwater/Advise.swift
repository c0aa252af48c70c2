// `breakwater advise`: suggested TTLs per operation from a running proxy's freshness samples,
// as a `cache.rules` snippet with the evidence beside each rule (docs/FRESHNESS.md).

import ArgumentParser
import BreakwaterCore
import Foundation

struct Advise: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print suggested TTLs per operation from a running proxy's freshness samples, as a cache.rules snippet.")

    @Option(help: "The proxy's admin URL, e.g. http://127.0.0.1:9090 (default: admin.listen of --config).")
    var admin: String?

    @Option(help: "Path of the configuration file (for the admin address and cache.freshness.target).")
    var config = "./config.yaml"

    func run() throws {
        var target: Double?
        var adminURL = admin
        // The configuration is read when it is there; with --admin it is optional.
        if admin == nil || FileManager.default.fileExists(atPath: config) {
            let loaded = try ConfigurationFile.load(config, logFormatted: false)
            target = loaded.configuration.cache.freshness.target
            if adminURL == nil {
                let listen = loaded.configuration.admin.listen
                let host = ["0.0.0.0", "::", ""].contains(listen.host) ? "127.0.0.1" : listen.host
                adminURL = "http://\(HostPort(host: host, port: listen.port))"
            }
        }
        guard let adminURL else { throw ValidationError("no admin URL") }
        let body: [UInt8]
        do {
            body = try AdminRequest.get(adminURL, path: "/stats")
        } catch {
            Console.error("breakwater advise: \(error)")
            throw ExitCode(1)
        }
        do {
            print(try FreshnessAdvice.snippet(stats: body, source: adminURL, target: target), terminator: "")
        } catch {
            Console.error("breakwater advise: \(error)")
            throw ExitCode(1)
        }
    }
}
