// The process lifecycle against the real binary (docs/OPERATING.md): readiness apart from
// liveness, HEAD on admin GETs, shutdown_delay before the drain, SIGHUP naming restart-only
// keys and applying the rest, and the admin listener's Host and Content-Type guards.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct LifecycleTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"92\") { __typename id site } }"}"#

    @Test func readinessTurns503AtOnceWhileLivenessStays200AndInFlightWorkFinishes() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        #expect(try proxy.admin.get("/readyz").status == 200)
        let client = proxy.client
        let done = DispatchSemaphore(value: 0)
        let slowStatus = Collected<Int>()
        Thread {
            slowStatus.append((try? client.post("/graphql", json: #"{"query":"{ slow(ms: 1000) }"}"#).status) ?? -1)
            done.signal()
        }.start()
        let deadline = ContinuousClock.now + .seconds(5)
        while (try origin.counters()["requests"] as? Int ?? 0) == 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.02)
        }
        proxy.process.signal(SIGTERM)
        #expect(try eventually(within: .seconds(1)) { try proxy.admin.get("/readyz").status == 503 })
        #expect(!slowStatus.all.contains(200), "not ready while the slow request is still in flight")
        #expect(try proxy.admin.get("/healthz").status == 200, "liveness stays ok while draining")
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(slowStatus.all == [200])
        #expect(proxy.process.waitForExit(timeout: .seconds(5)) == 0)
    }

    @Test func shutdownDelayKeepsServingNewConnectionsWhileNotReady() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "server:\n  shutdown_delay: 1500ms\n")
        let started = ContinuousClock.now
        proxy.process.signal(SIGTERM)
        #expect(try eventually(within: .seconds(1)) { try proxy.admin.get("/readyz").status == 503 })
        // Within the delay a fresh connection is still served (the balancer has not caught up yet).
        #expect(try proxy.client.post("/graphql", json: Self.detail).status == 200)
        #expect(proxy.process.isRunning)
        #expect(proxy.process.waitForExit(timeout: .seconds(6)) == 0)
        #expect(ContinuousClock.now - started >= .milliseconds(1400), "the process waited out shutdown_delay")
        // After the delay the listener was closed.
        #expect(throws: (any Error).self) { try proxy.client.get("/graphql?query=%7B__typename%7D") }
    }

    @Test(arguments: ["/stats", "/metrics", "/", "/healthz", "/readyz"])
    func headAnswersEveryAdminGetWithoutABody(path: String) throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let get = try proxy.admin.get(path)
        let head = try proxy.admin.send(method: "HEAD", target: path)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Type") == get.header("Content-Type"))
        #expect(Int(head.header("Content-Length") ?? "") ?? -1 > 0)
    }

    @Test func adminPostNeedsJSONContentType() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        _ = try proxy.client.post("/graphql", json: Self.detail)
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let response = try proxy.admin.send(
                method: "POST", target: "/purge", headers: [("Content-Type", type)], body: Array(#"{"all":true}"#.utf8))
            #expect(response.status == 415, "\(type)")
        }
        let none = try proxy.admin.send(method: "POST", target: "/purge", body: Array(#"{"all":true}"#.utf8))
        #expect(none.status == 415)
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT", "nothing was purged")
        let json = try proxy.admin.post("/purge", json: #"{"all":true}"#, headers: [("Content-Type", "application/json; charset=utf-8")])
        #expect(json.status == 200)
    }

    @Test func adminAnswersOnlyLoopbackAndAllowedHosts() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, extra: "admin:\n  allowed_hosts: [bw-admin.internal]\n")
        let port = proxy.adminPort
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "localhost", "[::1]:\(port)", "bw-admin.internal:\(port)"] {
            #expect(try proxy.admin.get("/stats", headers: [("Host", host)]).status == 200, "\(host)")
        }
        for host in ["evil.example:\(port)", "evil.example", "127.0.0.1.evil.example", "10.1.2.3:\(port)"] {
            let response = try proxy.admin.get("/stats", headers: [("Host", host)])
            #expect(response.status == 403, "\(host)")
            #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#, headers: [("Host", host)]).status == 403)
        }
    }

    /// The probes reveal nothing and answer any Host: a load balancer or a Consul check probes
    /// by address. Every other admin path keeps the Host check (DNS rebinding).
    @Test func healthProbesAnswerAnyHostAndTheRestKeepTheCheck() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url)
        let port = proxy.adminPort
        for path in ["/healthz", "/readyz"] {
            for method in ["GET", "HEAD"] {
                for host in ["evil.example:\(port)", "10.9.9.9:\(port)", "localhost"] {
                    let probe = try proxy.admin.send(method: method, target: path, headers: [("Host", host)])
                    #expect(probe.status == 200, "\(method) \(path) with Host \(host)")
                }
            }
        }
        for path in ["/stats", "/metrics", "/"] {
            #expect(try proxy.admin.get(path, headers: [("Host", "10.9.9.9:\(port)")]).status == 403, "\(path)")
        }
    }

    /// A pod's own address gets into the other admin paths through `allowed_hosts:
    /// ["${POD_IP}"]`, as deploy/k8s sets it.
    @Test func thePodAddressGetsInThroughExpansion() throws {
        let origin = try DemoOriginProcess()
        let podIP = "10.1.2.3"
        let proxy = try ProxyProcess(
            origin: origin.url, yaml: "persisted_queries:\n  store: \"\"\nadmin:\n  allowed_hosts: [\"${POD_IP}\"]\n",
            environment: ["POD_IP": podIP])
        let port = proxy.adminPort
        #expect(try proxy.admin.get("/stats", headers: [("Host", "\(podIP):\(port)")]).status == 200)
        #expect(try proxy.admin.get("/stats", headers: [("Host", "10.9.9.9:\(port)")]).status == 403, "another pod's address")
    }

    @Test func sighupNamesRestartOnlyKeysAndAppliesTheReloadableOnes() throws {
        let origin = try DemoOriginProcess()
        let base = "persisted_queries:\n  store: \"\"\n"
        let proxy = try ProxyProcess(origin: origin.url, yaml: base, logLevel: "notice")
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#).status == 200)
        try proxy.rewriteConfig(
            base + "  max_entries: 5\nserver:\n  threads: 7\nadmin:\n  token: s3cret-0123456789abcdef\n  allowed_hosts: [bw.internal]\n")
        proxy.process.signal(SIGHUP)
        _ = try proxy.process.waitForLine(containing: "configuration reloaded", timeout: .seconds(5))
        let output = proxy.process.output.joined(separator: "\n")
        #expect(output.contains("persisted_queries.max_entries changed"))
        // --threads on the command line wins over the file, so threads did not change.
        #expect(!output.contains("server.threads changed"))
        #expect(try proxy.admin.post("/purge", json: #"{"all":true}"#).status == 401, "admin.token applied")
        #expect(try proxy.admin.get("/stats", headers: [("Host", "bw.internal")]).status == 200, "allowed_hosts applied")
    }
}
