// `redis.sentinel_password` (docs/FLEET.md, "Sentinel") against a real sentinel with `requirepass`:
// with the right password (from the environment) the proxy finds the master and shares through
// it; with a wrong or no password it says so in one line per sentinel, however often it retries,
// and serves from local memory.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct SentinelPasswordTests {
    static let password = "sentinel-secret-0123"

    /// A proxy whose fleet tier follows `sentinel`, with `password` lines added to `redis`.
    private func proxy(
        origin: DemoOriginProcess, sentinel: ProtectedSentinel, password: String?, environment: [String: String] = [:]
    ) throws -> ProxyProcess {
        let yaml = """
            persisted_queries:
              store: ""
            cache:
              rules:
                - operation: GetLaunchDetail
                  ttl: 30s
            redis:
              sentinels: ["\(sentinel.address)"]
              master_name: \(ProtectedSentinel.masterName)
              key_prefix: "bwsentpw-\(UUID().uuidString.prefix(8)):"
              timeout: 500ms
            """ + (password.map { "\n  sentinel_password: \"\($0)\"" } ?? "") + "\n"
        return try ProxyProcess(origin: origin.url, yaml: yaml, environment: environment, logLevel: "notice")
    }

    /// The proxy's `/stats` `redis` block.
    private func redisStatus(_ proxy: ProxyProcess) throws -> [String: Any] {
        try #require(try proxy.stats()["redis"] as? [String: Any])
    }

    @Test func withTheRightPasswordTheProxyFindsTheMasterThroughTheSentinel() throws {
        let sentinel = try ProtectedSentinel(password: Self.password)
        let origin = try DemoOriginProcess()
        let proxy = try self.proxy(
            origin: origin, sentinel: sentinel, password: "${SENTINEL_PASSWORD}",
            environment: ["SENTINEL_PASSWORD": Self.password])
        let master = "127.0.0.1:\(sentinel.master.port)"
        var last: [String: Any] = [:]
        let followed = try eventually(within: .seconds(20), every: .milliseconds(50)) {
            last = try redisStatus(proxy)
            return last["master"] as? String == master && last["connected"] as? Bool == true
                && last["subscribed"] as? Bool == true
        }
        #expect(followed, "the proxy did not reach \(master) through the sentinel: \(last)")
        // The master is really in use: the proxy's fleet keys are written there.
        let answer = try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"3"}"#)
        #expect(answer.status == 200)
        #expect(try eventually(within: .seconds(10)) { try sentinel.master.cli("DBSIZE") != "0" })
        #expect(!proxy.process.output.contains { $0.contains("refused the connection") }, "\(proxy.process.output)")
        // The startup line names the sentinel without its password.
        #expect(!proxy.process.output.contains { $0.contains(Self.password) })
    }

    @Test func aWrongPasswordIsOneClearLineAndTheProxyServesFromLocalMemory() throws {
        let sentinel = try ProtectedSentinel(password: Self.password)
        let origin = try DemoOriginProcess()
        let before = try sentinel.errorReplies()
        let proxy = try self.proxy(origin: origin, sentinel: sentinel, password: "not-the-sentinel-password")
        let line = try proxy.process.waitForLine(containing: "redis sentinel refused the connection", timeout: .seconds(20))
        #expect(line.contains("WRONGPASS"), "\(line)")
        #expect(line.contains("redis.sentinel_password"), "\(line)")
        #expect(line.contains(sentinel.address), "\(line)")
        #expect(!line.contains("not-the-sentinel-password"), "\(line)")
        // Let the proxy retry a few times (each refused login sends errors back), then count lines.
        #expect(try eventually(within: .seconds(30), every: .milliseconds(50)) {
            try sentinel.errorReplies() >= before + 16
        })
        let refusals = proxy.process.output.filter { $0.contains("redis sentinel refused the connection") }
        #expect(refusals.count == 1, "\(refusals)")
        // No master known: local-only, and every client still gets its answer.
        let status = try redisStatus(proxy)
        #expect(status["connected"] as? Bool == false, "\(status)")
        #expect(status["master"] as? String == "", "\(status)")
        let first = try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"4"}"#)
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "MISS")
        #expect(try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"4"}"#).header("X-Cache") == "HIT")
        #expect(proxy.process.isRunning)
        #expect(try sentinel.master.cli("DBSIZE") == "0", "nothing reached the master")
    }

    @Test func noPasswordForASentinelThatWantsOneIsSaidToo() throws {
        let sentinel = try ProtectedSentinel(password: Self.password)
        let origin = try DemoOriginProcess()
        let proxy = try self.proxy(origin: origin, sentinel: sentinel, password: nil)
        let line = try proxy.process.waitForLine(containing: "redis sentinel refused the connection", timeout: .seconds(20))
        #expect(line.contains("NOAUTH"), "\(line)")
        #expect(try FleetStack.post(proxy, FleetStack.detail, variables: #"{"id":"5"}"#).status == 200)
    }
}
