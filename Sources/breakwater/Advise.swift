// `breakwater advise`: suggested TTLs per operation from a running proxy's freshness samples,
// as `cache.rules` entries with the evidence beside each rule (docs/FRESHNESS.md), or with
// `--merge` the whole configuration with them merged. It only reads `GET /stats`, so it never
// needs the admin token: with `--admin` it reads no configuration at all, and without it only
// `admin.listen` of the configuration.

import ArgumentParser
import BreakwaterCore
import Foundation

struct Advise: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print suggested TTLs per operation from a running proxy's freshness samples, as cache.rules entries.")

    @Option(help: "The proxy's admin URL, e.g. http://127.0.0.1:9090 (default: admin.listen of --config).")
    var admin: String?

    @Option(
        help: "The configuration whose admin.listen is the admin URL without --admin (default: the --merge file, else ./config.yaml).")
    var config: String?

    @Option(help: "Print this configuration file with the suggested rules merged into cache.rules, not the entries alone.")
    var merge: String?

    func run() throws {
        let adminURL = try admin ?? Self.adminURL(configuration: config ?? merge ?? ConfigurationFile.defaultPath)
        let body: [UInt8]
        let advice: FreshnessAdvice
        do {
            body = try AdminRequest.get(adminURL, path: "/stats")
            advice = try FreshnessAdvice(stats: body, source: adminURL)
        } catch {
            Console.error("breakwater advise: \(error)")
            throw ExitCode(1)
        }
        guard let merge else {
            print(advice.snippet, terminator: "")
            return
        }
        guard let data = FileManager.default.contents(atPath: merge), let text = String(data: data, encoding: .utf8)
        else {
            Console.error("\(merge):0: cannot read file")
            throw ExitCode(2)
        }
        do {
            print(try CacheRulesMerge.merged(yaml: text, file: merge, rules: advice.rules), terminator: "")
        } catch {
            Console.error("breakwater advise: \(error)")
            throw ExitCode(2)
        }
    }

    /// `http://` and `admin.listen` of the file at `path` (a wildcard host read as loopback).
    private static func adminURL(configuration path: String) throws -> String {
        let listen: HostPort
        do {
            listen = try ConfigurationLoader.adminListen(path: path)
        } catch {
            for problem in error.problems { Console.problem(problem, level: "error", format: .text) }
            throw ExitCode(2)
        }
        let host = ["0.0.0.0", "::", ""].contains(listen.host) ? "127.0.0.1" : listen.host
        return "http://\(HostPort(host: host, port: listen.port))"
    }
}
