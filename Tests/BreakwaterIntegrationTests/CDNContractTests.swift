// The purge calls Breakwater makes to Fastly, Cloudflare and a webhook (docs/CDN.md), checked
// against a local HTTPS stand-in (Tests/fixtures/cdn_api_recorder.py) trusted through
// SSL_CERT_FILE: method, path, headers, body, auth, batching, a retry after a 503, the overflow
// rule, and certificate verification.

import BreakwaterTesting
import Foundation
import Testing

/// The HTTPS stand-in for a purge API, printing each request it gets.
final class CDNAPIRecorder: @unchecked Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/cdn_api_recorder.py").path

    let certificate: TestCertificate
    let process: ManagedProcess
    let port: Int
    var base: String { "https://localhost:\(port)" }

    /// `failing`: the first `count` requests are answered `status`; `delay`: every answer waits
    /// that long (a slow API).
    init(failing: (count: Int, status: Int)? = nil, delay: Duration? = nil) throws {
        certificate = try TestCertificate(name: "localhost")
        let failure = failing.map { ["--fail", String($0.count), String($0.status)] } ?? []
        let slowness = delay.map { ["--delay", String($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000)] } ?? []
        process = ManagedProcess(
            executable: "/usr/bin/env",
            arguments: ["python3", Self.script, certificate.certificate, certificate.key] + failure + slowness)
        try process.start()
        let line = try process.waitForLine(containing: "cdn api listening on", timeout: .seconds(20))
        port = try #require(ManagedProcess.listeningPort(in: line))
    }

    /// The requests received so far, in order.
    var requests: [[String: Any]] {
        process.output.filter { $0.hasPrefix("request ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst(8).utf8)) as? [String: Any]
        }
    }

    /// Waits until `count` requests arrived and returns them.
    func waitForRequests(_ count: Int) throws -> [[String: Any]] {
        #expect(try eventually { requests.count >= count })
        return requests
    }

    deinit { _ = process.terminate() }
}

@Suite(.serialized) struct CDNContractTests {
    /// A proxy trusting `api`'s certificate, purging through `targets` (YAML list items).
    func proxy(_ api: CDNAPIRecorder, tagHeader: String, targets: String, settings: String = "") throws -> ProxyProcess {
        let origin = try DemoOriginProcess()
        let yaml = """
            origin:
              schema: "off"
            persisted_queries:
              store: ""
            cache:
              tag_header: \(tagHeader)
            cdn:
              targets:
            \(targets)
            \(settings)
            """
        return try ProxyProcess(
            origin: origin.url, yaml: yaml,
            environment: ["SSL_CERT_FILE": api.certificate.certificate, "SSL_CERT_DIR": "/nonexistent"])
    }

    func purge(_ proxy: ProxyProcess, _ json: String) throws {
        let response = try proxy.admin.post("/purge", json: json)
        #expect(response.status == 200, "\(response)")
    }

    static func headers(_ request: [String: Any]) -> [String: String] { request["headers"] as? [String: String] ?? [:] }

    static func body(_ request: [String: Any]) -> Any? {
        (request["body"] as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) }
    }

    static func cdn(_ proxy: ProxyProcess, _ label: String) throws -> [String: Any] {
        try #require((try proxy.stats()["cdn"] as? [String: Any])?[label] as? [String: Any])
    }

    // MARK: Fastly

    func fastly(_ api: CDNAPIRecorder, soft: Bool = false, settings: String = "  batch_window: 0ms") throws -> ProxyProcess {
        try proxy(
            api, tagHeader: "Surrogate-Key",
            targets: """
                    - kind: fastly
                      service_id: SU1Z0isxPaozGVKXdv0eY
                      token: "fastly-test-token-1234"
                      soft: \(soft)
                      api_url: "\(api.base)"
                """, settings: settings)
    }

    @Test func fastlyPurgesBySurrogateKeyWithItsToken() throws {
        let api = try CDNAPIRecorder()
        let proxy = try fastly(api)
        try purge(proxy, #"{"type":"Launch","id":"7"}"#)
        let request = try #require(try api.waitForRequests(1).first)
        #expect(request["method"] as? String == "POST")
        #expect(request["path"] as? String == "/service/SU1Z0isxPaozGVKXdv0eY/purge")
        #expect(Self.headers(request)["surrogate-key"] == "Launch:7")
        #expect(Self.headers(request)["fastly-key"] == "fastly-test-token-1234")
        #expect(Self.headers(request)["fastly-soft-purge"] == nil)
        #expect(Self.headers(request)["host"] == "localhost:\(api.port)")
    }

    @Test func fastlySoftPurgeAndPurgeAll() throws {
        let api = try CDNAPIRecorder()
        let proxy = try fastly(api)
        try purge(proxy, #"{"operation":"GetLaunchDetail","soft":true}"#)
        _ = try api.waitForRequests(1)
        try purge(proxy, #"{"all":true}"#)
        let requests = try api.waitForRequests(2)
        #expect(Self.headers(requests[0])["surrogate-key"] == "op:GetLaunchDetail")
        #expect(Self.headers(requests[0])["fastly-soft-purge"] == "1")
        #expect(requests[1]["path"] as? String == "/service/SU1Z0isxPaozGVKXdv0eY/purge_all")
        #expect(Self.headers(requests[1])["fastly-key"] == "fastly-test-token-1234")
    }

    @Test func purgesWithinTheBatchWindowGoAsOneCall() throws {
        let api = try CDNAPIRecorder()
        let proxy = try fastly(api, settings: "  batch_window: 1s")
        for id in 1...5 { try purge(proxy, #"{"type":"Launch","id":"\#(id)"}"#) }
        try purge(proxy, #"{"type":"Launch","id":"3"}"#)
        let request = try #require(try api.waitForRequests(1).first)
        #expect(Self.headers(request)["surrogate-key"] == "Launch:1 Launch:2 Launch:3 Launch:4 Launch:5")
        let figures = try Self.cdn(proxy, "fastly")
        #expect(figures["purges"] as? Int == 6)
        #expect(try eventually { try Self.cdn(proxy, "fastly")["sent"] as? Int == 1 })
        #expect(api.requests.count == 1)
    }

    @Test func aCallAnswered503IsRetried() throws {
        let api = try CDNAPIRecorder(failing: (1, 503))
        let proxy = try fastly(api)
        try purge(proxy, #"{"type":"Launch","id":"7"}"#)
        let requests = try api.waitForRequests(2)
        #expect(requests.map { Self.headers($0)["surrogate-key"] } == ["Launch:7", "Launch:7"])
        #expect(try eventually { try Self.cdn(proxy, "fastly")["sent"] as? Int == 1 })
        let figures = try Self.cdn(proxy, "fastly")
        #expect(figures["retried"] as? Int == 1)
        #expect(figures["failed"] as? Int == 0)
        #expect(figures["last_error"] as? String == "HTTP 503")
    }

    @Test func aWrongTokenIsNotRetried() throws {
        let api = try CDNAPIRecorder(failing: (5, 401))
        let proxy = try fastly(api)
        try purge(proxy, #"{"type":"Launch","id":"7"}"#)
        #expect(try eventually { try Self.cdn(proxy, "fastly")["failed"] as? Int == 1 })
        #expect(api.requests.count == 1)
        #expect(try Self.cdn(proxy, "fastly")["last_error"] as? String == "HTTP 401")
    }

    @Test func anAdminOverflowSendsOnePurgeOfEverything() throws {
        let api = try CDNAPIRecorder()
        let proxy = try fastly(api, settings: "  batch_window: 1s\n  max_queue: 3")
        for id in 1...5 { try purge(proxy, #"{"operation":"GetLaunch\#(id)"}"#) }
        let request = try #require(try api.waitForRequests(1).first)
        #expect(request["path"] as? String == "/service/SU1Z0isxPaozGVKXdv0eY/purge_all")
        #expect(try eventually { try Self.cdn(proxy, "fastly")["sent"] as? Int == 1 })
        #expect(try Self.cdn(proxy, "fastly")["overflows"] as? Int == 1)
        #expect(api.requests.count == 1)
        _ = try proxy.process.waitForLine(containing: "cdn purge queue full", timeout: .seconds(5))
    }

    @Test func anUntrustedCertificateIsRefused() throws {
        let api = try CDNAPIRecorder()
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: """
                persisted_queries:
                  store: ""
                cache:
                  tag_header: Surrogate-Key
                cdn:
                  targets:
                    - kind: fastly
                      service_id: svc
                      token: "fastly-test-token-1234"
                      api_url: "\(api.base)"
                  retries: 0
                """, environment: ["SSL_CERT_DIR": "/nonexistent"])
        try purge(proxy, #"{"type":"Launch","id":"7"}"#)
        #expect(try eventually { try Self.cdn(proxy, "fastly")["failed"] as? Int == 1 })
        #expect((try Self.cdn(proxy, "fastly")["last_error"] as? String)?.contains("certificate") == true)
        #expect(api.requests.isEmpty, "the token never went to an unverified server")
    }

    // MARK: Cloudflare

    @Test func cloudflarePurgesTagsWithinItsPerCallLimit() throws {
        let api = try CDNAPIRecorder()
        let proxy = try proxy(
            api, tagHeader: "Cache-Tag",
            targets: """
                    - kind: cloudflare
                      zone_id: 023e105f4ecef8ad9ca31a8372d0c353
                      token: "cloudflare-test-token"
                      api_url: "\(api.base)/client/v4"
                """, settings: "  batch_window: 3s")
        for id in 1...150 { try purge(proxy, #"{"type":"Launch","id":"\#(id)"}"#) }
        let requests = try api.waitForRequests(2)
        for request in requests {
            #expect(request["method"] as? String == "POST")
            #expect(request["path"] as? String == "/client/v4/zones/023e105f4ecef8ad9ca31a8372d0c353/purge_cache")
            #expect(Self.headers(request)["authorization"] == "Bearer cloudflare-test-token")
            #expect(Self.headers(request)["content-type"] == "application/json")
        }
        let tags = requests.map { ((Self.body($0) as? [String: Any])?["tags"] as? [String]) ?? [] }
        #expect(tags.map(\.count) == [100, 50])
        #expect(tags.flatMap { $0 } == (1...150).map { "Launch:\($0)" })
        try purge(proxy, #"{"all":true}"#)
        let all = try api.waitForRequests(3)[2]
        #expect((Self.body(all) as? [String: Any])?["purge_everything"] as? Bool == true)
    }

    // MARK: Webhook

    @Test func theWebhookGetsTagsSoftAndAll() throws {
        let api = try CDNAPIRecorder()
        let proxy = try proxy(
            api, tagHeader: "xkey",
            targets: """
                    - kind: http
                      url: "\(api.base)/hooks/purge"
                      token: "webhook-test-token"
                """, settings: "  batch_window: 0ms")
        try purge(proxy, #"{"type":"Launch","soft":true}"#)
        _ = try api.waitForRequests(1)
        try purge(proxy, #"{"all":true}"#)
        let requests = try api.waitForRequests(2)
        #expect(requests.map { $0["path"] as? String } == ["/hooks/purge", "/hooks/purge"])
        #expect(Self.headers(requests[0])["authorization"] == "Bearer webhook-test-token")
        let soft = try #require(Self.body(requests[0]) as? [String: Any])
        #expect(soft["tags"] as? [String] == ["Launch"])
        #expect(soft["soft"] as? Bool == true)
        #expect(soft["all"] as? Bool == false)
        let all = try #require(Self.body(requests[1]) as? [String: Any])
        #expect(all["all"] as? Bool == true)
        #expect(all["tags"] as? [String] == [])
    }
}
