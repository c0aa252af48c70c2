// Leases over a slow link (docs/FLEET.md, "Leases"): a proxy whose Redis link turns slow sees its
// lease calls time out while Redis still sets them. Those leases live one term (1 s before any
// fetch was seen), not origin.timeout, so the other proxy's requests for the same keys wait at
// most that long, and every client gets its answer.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct SlowLinkLeaseTests {
    @Test func leasesTakenOverASlowLinkLiveOneTermAndTheOtherProxyIsAnswered() throws {
        let origin = try DemoOriginProcess()
        let redis = try RedisServerProcess()
        let relay = try SlowLinkRelay(to: redis.port)
        defer { relay.stop() }
        let prefix = "bwslow-\(UUID().uuidString.prefix(8)):"
        func yaml(port: Int) -> String {
            """
            persisted_queries:
              store: ""
            cache:
              rules:
                - operation: GetLaunchDetail
                  ttl: 30s
            redis:
              url: redis://127.0.0.1:\(port)
              key_prefix: "\(prefix)"
              timeout: 50ms

            """
        }
        let slow = try ProxyProcess(origin: origin.url, yaml: yaml(port: relay.port), logLevel: "notice")
        let fast = try ProxyProcess(origin: origin.url, yaml: yaml(port: redis.port), logLevel: "notice")
        for proxy in [slow, fast] { try waitUntilConnected(proxy) }

        // Half a second of round trip on the slow proxy's link: its calls miss redis.timeout.
        relay.setDelay(.milliseconds(250))
        let ids = Array(200..<212)
        let onSlow = Collected<Int>()
        concurrently(ids.count) { index in
            let answer = try? FleetStack.post(slow, FleetStack.detail, variables: #"{"id":"\#(ids[index])"}"#)
            onSlow.append(answer?.status ?? -1)
        }
        // Every lease in Redis, and the longest time to live any of them had.
        var leases = Set<String>()
        var longest = 0
        func scan() throws {
            let names = try redis.cli("--scan", "--pattern", "\(prefix)lease:*").split(separator: "\n").map(String.init)
            for name in names {
                guard let ttl = Int(try redis.cli("PTTL", name)), ttl > 0 else { continue }
                leases.insert(name)
                longest = max(longest, ttl)
            }
        }
        // The slow proxy has its answers; its SETs are still on the way, and land. (On a busy
        // machine its releases may land so soon after them that no scan sees one: then there is
        // no lease to wait on, which is the point too. A lease that outlived its term would be seen.)
        let landing = ContinuousClock.now + .seconds(3)
        while leases.isEmpty && ContinuousClock.now < landing {
            try scan()
            Thread.sleep(forTimeInterval: 0.01)
        }
        // Now the other proxy asks for the same keys: it finds those leases taken.
        let onFast = Collected<(Int, Duration)>()
        let fastDone = DispatchGroup()
        fastDone.enter()
        Thread {
            concurrently(ids.count) { index in
                let started = ContinuousClock.now
                let answer = try? FleetStack.post(fast, FleetStack.detail, variables: #"{"id":"\#(ids[index])"}"#)
                onFast.append((answer?.status ?? -1, ContinuousClock.now - started))
            }
            fastDone.leave()
        }.start()
        let watchUntil = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < watchUntil {
            try scan()
            Thread.sleep(forTimeInterval: 0.01)
        }
        fastDone.wait()
        relay.setDelay(.zero)
        let waits = (try fast.stats()["redis"] as? [String: Any]) ?? [:]
        let slowStats = (try slow.stats()["redis"] as? [String: Any]) ?? [:]
        let durations = onFast.all.map(\.1).sorted()
        print(
            "slow link: \(leases.count) leases seen, longest PTTL \(longest) ms; the other proxy's answers took "
                + "p50 \(durations[durations.count / 2]), max \(durations.last ?? .zero); its lease waits "
                + "\(waits["lease_waits"] ?? 0) totalling \(waits["lease_wait_ms"] ?? 0) ms; slow proxy's Redis "
                + "timeouts \(slowStats["timeouts"] ?? 0)")
        #expect(onSlow.all.allSatisfy { $0 == 200 }, "\(onSlow.all)")
        #expect(onFast.all.allSatisfy { $0.0 == 200 }, "\(onFast.all.map(\.0))")
        // One term, not origin.timeout (10 s).
        #expect(longest <= 1_000, "a lease lived \(longest) ms")
    }

    private func waitUntilConnected(_ proxy: ProxyProcess) throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let redis = try proxy.stats()["redis"] as? [String: Any], redis["subscribed"] as? Bool == true,
                let ready = redis["connections_ready"] as? Int, ready > 0, ready == redis["connections"] as? Int
            {
                return
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Issue.record("the proxy did not connect to Redis within 10 s")
    }
}
