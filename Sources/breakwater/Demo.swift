// `breakwater demo`: the proxy and the demo origin in one process, no config needed.

import ArgumentParser
import BreakwaterCore
import BreakwaterDemoOrigin
import BreakwaterServer
import BreakwaterService

struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the proxy in front of an embedded demo GraphQL origin, and print curl examples.")

    @Option(help: "Address of the proxy, HOST:PORT (default 127.0.0.1:8080, or a free port when taken).")
    var listen: String?

    @Option(
        name: .customLong("origin-listen"),
        help: "Address of the demo origin, HOST:PORT (default 127.0.0.1:4000, or a free port when taken).")
    var originListen: String?

    @Option(
        name: .customLong("admin-listen"),
        help: "Address of the admin endpoints, HOST:PORT (default 127.0.0.1:9090, or a free port when taken).")
    var adminListen: String?

    @Option(help: "Event loops, 0 = one per core.")
    var threads = 0

    @Flag(name: .customLong("origin-only"), help: "Serve only the demo origin, no proxy (tests and benchmarks put a proxy in front).")
    var originOnly = false

    @Flag(
        name: .customLong("test-controls"),
        help: "Expose the origin's fault-injection and counter endpoints under /_demo/ (for tests).")
    var testControls = false

    @Option(name: .customLong("origin-tls-cert"), help: "Serve the demo origin over https with this PEM certificate.")
    var originTLSCert: String?

    @Option(name: .customLong("origin-tls-key"), help: "The PEM private key for --origin-tls-cert.")
    var originTLSKey: String?

    @Option(
        help: ArgumentHelp(
            "A field of every launch that changes as a Poisson process with this mean interval, e.g. Launch.site=30s (repeatable; fields: \(DemoChurn.Field.allCases.map(\.rawValue).joined(separator: ", "))).",
            valueName: "FIELD=INTERVAL"))
    var churn: [String] = []

    @Option(
        help: ArgumentHelp(
            "Share of the demo's public entries whose freshness is sampled (cache.freshness.sample; 0 = off). All of them by default: the demo origin runs in this process, so sampling costs nothing, and with --churn the samples reach the 100 an estimate needs within minutes.",
            valueName: "SHARE"))
    var sample = 1.0

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    func run() throws {
        let churnRules: [DemoChurn.Rule]
        do {
            churnRules = try churn.map { text throws(DemoChurnError) in try DemoChurn.Rule(parsing: text) }
        } catch {
            throw ValidationError(error.description)
        }
        Service.blockProcessSignals()
        guard let proxyGiven = HostPort(parsing: listen ?? "127.0.0.1:8080"),
            let originGiven = HostPort(parsing: originListen ?? "127.0.0.1:4000"),
            let adminGiven = HostPort(parsing: adminListen ?? "127.0.0.1:9090")
        else {
            throw ValidationError("addresses are HOST:PORT")
        }
        let originAddress = PortProbe.usable(originGiven, explicit: originListen != nil, role: "demo origin")
        let proxyAddress = PortProbe.usable(proxyGiven, explicit: listen != nil || originOnly, role: "proxy")
        let adminAddress = PortProbe.usable(adminGiven, explicit: adminListen != nil || originOnly, role: "admin")
        guard (0...1).contains(sample) else { throw ValidationError("--sample: expected a share from 0 to 1") }
        guard let level = Configuration.LogLevel(rawValue: logLevel.lowercased()) else {
            throw ValidationError("--log-level: expected one of trace, debug, info, notice, warning, error, critical")
        }
        var settings = Configuration()
        settings.logging.level = level
        // The demo's stdout is for the curl examples; `run` has the access log.
        settings.logging.accessLog = .off
        let logger = LogSetup.bootstrap(settings.logging)
        defer { LogSetup.flush() }
        settings.server.threads = threads
        settings.server.listen = proxyAddress
        settings.admin.listen = adminAddress
        // The demo keeps its registry in memory: it writes no files.
        settings.persistedQueries.store = ""
        settings.cache.snapshot = ""
        // The demo's operations get the TTLs of the shipped config.yaml, so a second curl hits.
        settings.cache.rules = [
            .init(operation: "GetLaunches", ttl: .seconds(30)),
            .init(operation: "GetLaunch", ttl: .seconds(300)),
            .init(operation: "GetLaunchDetail", ttl: .seconds(300)),
            .init(operation: "Me", ttl: .seconds(60), scope: .perUser),
        ]
        // Freshness measured (docs/FRESHNESS.md): every key sampled by default, and a fetch bound
        // that the demo's traffic does not reach, so `breakwater advise` has figures soon.
        settings.cache.freshness = FreshnessSettings(share: sample, maxFetchesPerSecond: 100, target: 0.99)
        let service: Service
        var proxy: ProxyStack?
        do {
            service = try Service(threads: threads, logger: logger)
            let demo = DemoOrigin(
                graphqlPath: settings.server.graphqlPath, testControls: testControls,
                churn: churnRules.isEmpty ? nil : DemoChurn(rules: churnRules))
            var originLimits = HTTPLimits()
            if let originTLSCert, let originTLSKey {
                originLimits.tls = try TLSServerContext(certificateFile: originTLSCert, keyFile: originTLSKey)
            }
            let origin = try service.addServer(address: originAddress, limits: originLimits) { _ in demo }
            let originURL = "\(originLimits.tls == nil ? "http" : "https")://\(originAddress.withPort(origin.port))\(settings.server.graphqlPath)"
            Console.ready("demo origin listening on \(originURL)")
            if !originOnly {
                settings.origin.url = OriginURL(parsing: originURL)!
                proxy = try service.addProxy(configuration: settings)
            }
        } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        service.run(drainTimeout: .seconds(5)) { [settings] in
            guard let proxy else { return }
            proxy.awaitSchemaBeforeReady(settings.origin, logger: logger)
            let proxyURL = "http://\(proxyAddress.withPort(proxy.proxyServer.port))\(settings.server.graphqlPath)"
            Console.ready("listening on \(proxyURL)")
            Console.ready("admin listening on http://\(adminAddress.withPort(proxy.adminServer.port)) (stats, metrics, dashboard)")
            Console.line("\nTry it (Ctrl-C stops):\n")
            for example in DemoOrigin.curlExamples(proxyURL: proxyURL) { Console.line(example + "\n") }
            if sample > 0 {
                let adminURL = "http://\(adminAddress.withPort(proxy.adminServer.port))"
                Console.line("Suggested TTLs, once an operation has 100 freshness samples:\n  breakwater advise --admin \(adminURL)\n")
            }
            LogSetup.flush()
        }
    }
}
