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
        // Ready a moment after its ready lines are written.
        #expect(try eventually(within: .seconds(5)) { try proxy.admin.get("/readyz").status == 200 })
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

    /// Not ready before it has started: while the proxy waits for the schema's first outcome,
    /// `/readyz` answers 503 `starting`; once it answers 200 the ready lines are written, so a
    /// script that waits for it finds them in the log (docs/GETTING-STARTED.md does).
    @Test func readinessWaitsForTheStartAndItsLines() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"delayMs": 2000}"#)
        let adminPort = FreePort.allocate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("config.yaml")
        try "persisted_queries:\n  store: \"\"\norigin:\n  schema: auto\n".write(to: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("breakwater.log")
        let process = ManagedProcess(
            executable: "/bin/sh",
            arguments: [
                "-c", "exec \"$0\" run --config \"$1\" --listen 127.0.0.1:0 --origin \"$2\" --admin-listen 127.0.0.1:\"$3\" >\"$4\" 2>&1",
                try BreakwaterBinary.path(), config.path, origin.url, String(adminPort), log.path,
            ])
        try process.start()
        defer { _ = process.terminate() }
        let admin = HTTPClient(port: adminPort)
        var answers: [String] = []
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard let answer = try? admin.get("/readyz") else {
                Thread.sleep(forTimeInterval: 0.02)
                continue
            }
            answers.append("\(answer.status) \(answer.text)")
            if answer.status == 200 {
                let written = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                #expect(written.contains("breakwater: listening on"), "ready, and the line is written: \(written)")
                #expect(written.contains("breakwater: admin listening on"), "\(written)")
                break
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(answers.first == "503 starting\n", "\(answers.prefix(3))")
        #expect(answers.last == "200 ready\n", "\(answers.suffix(3))")
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
