// The demo origin and a proxy whose listener speaks HTTP/2: prior knowledge (h2c) on a plain
// port, or ALPN h2 over TLS with a fresh self-signed certificate.

import BreakwaterTesting
import Foundation
import Testing

final class HTTP2Stack: @unchecked Sendable {
    /// A cached operation every test can ask for: `GetLaunch` (TTL 1h in `cacheRules`).
    static let launchQuery = #"query GetLaunch { launch(id: "7") { id site mission { name } } }"#
    /// A full-query GET of `launchQuery`.
    static let launchPath =
        "/graphql?" + URLEncoding.queryString([("query", launchQuery), ("operationName", "GetLaunch")])
    static let cacheRules = """
        cache:
          rules:
            - operation: GetLaunch
              ttl: 1h
        """

    let origin: DemoOriginProcess
    let proxy: ProxyProcess
    let certificate: TestCertificate?

    /// `server` holds lines under `server:` (indented two spaces), `rest` any other sections.
    init(
        tls: Bool = false, server: String = "", rest: String = HTTP2Stack.cacheRules, threads: Int = 2,
        logLevel: String = "warning"
    ) throws {
        origin = try DemoOriginProcess()
        let certificate = tls ? try TestCertificate(name: "localhost") : nil
        self.certificate = certificate
        let tlsLines = certificate.map { "  tls:\n    cert: \($0.certificate)\n    key: \($0.key)\n" } ?? ""
        var yaml = tlsLines.isEmpty && server.isEmpty ? "" : "server:\n" + tlsLines + (server.isEmpty ? "" : server + "\n")
        yaml += "persisted_queries:\n  store: \"\"\n" + rest + "\n"
        proxy = try ProxyProcess(origin: origin.url, yaml: yaml, threads: threads, logLevel: logLevel)
    }

    var isTLS: Bool { certificate != nil }
    var port: Int { proxy.port }
    var pid: Int32 { proxy.process.processIdentifier ?? 0 }

    /// The raw-frame client, TLS when the listener is.
    var frames: HTTP2FrameClient { HTTP2FrameClient(port: port, tls: isTLS) }

    /// The proxy's resident memory and CPU time now.
    func usage() throws -> ProcessUsage { try ProcessUsage(pid: pid) }

    /// `curl` with `arguments` against this listener's `target`: (exit status, stdout).
    func curl(_ arguments: [String], target: String = HTTP2Stack.launchPath) throws -> (status: Int32, output: String) {
        let scheme = isTLS ? "https://localhost" : "http://127.0.0.1"
        let trust = certificate.map { ["--cacert", $0.certificate] } ?? []
        return try runTool("/usr/bin/curl", ["-s", "--max-time", "20"] + trust + arguments + ["\(scheme):\(port)\(target)"])
    }
}
