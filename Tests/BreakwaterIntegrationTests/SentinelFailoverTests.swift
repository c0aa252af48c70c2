// Redis Sentinel (docs/FLEET.md, "Sentinel"): two real proxies find the master through three
// sentinels; the master is killed under traffic; no client sees an error, both proxies follow
// the promoted replica, and a registration made after the failover reaches the other proxy.

import BreakwaterTesting
import Foundation
import Testing

@Suite(.serialized) struct SentinelFailoverTests {
    @Test func killingTheMasterUnderTrafficCausesNoClientErrorAndSharingResumes() throws {
        let cluster = try SentinelCluster()
        try cluster.waitUntilWatched()
        let oldMaster = "127.0.0.1:\(cluster.master.port)"
        let newMaster = "127.0.0.1:\(cluster.replica.port)"
        #expect(cluster.currentMaster() == oldMaster)
        let origin = try DemoOriginProcess()
        let yaml = """
            persisted_queries:
              store: ""
            cache:
              rules:
                - operation: GetLaunchDetail
                  ttl: 30s
            redis:
              sentinels: [\(cluster.sentinelAddresses.map { "\"\($0)\"" }.joined(separator: ", "))]
              master_name: \(SentinelCluster.masterName)
              key_prefix: "bwsentinel:"
              timeout: 500ms
            """
        let proxies = try (0..<2).map { _ in try ProxyProcess(origin: origin.url, yaml: yaml, logLevel: "notice") }
        try waitUntil(proxies, follow: oldMaster, failovers: 0)

        // Traffic on both proxies for the whole failover: every answer must be a 200 with data.
        let stop = LockedValue(false)
        let answers = LockedValue(0)
        let failures = Collected<String>()
        let traffic = DispatchGroup()
        for worker in 0..<4 {
            traffic.enter()
            Thread {
                defer { traffic.leave() }
                var round = 0
                while !stop.load() {
                    round += 1
                    let id = (round * 7 + worker) % 40
                    do {
                        let answer = try FleetStack.post(
                            proxies[worker % 2], FleetStack.detail, variables: #"{"id":"\#(id)"}"#)
                        if answer.status != 200 || firstError(answer).code != nil || answer.data == nil {
                            failures.append("\(answer.status) \(firstError(answer))")
                        }
                        answers.update { $0 += 1 }
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }.start()
        }
        defer {
            stop.store(true)
            traffic.wait()
        }
        // Some traffic before the kill.
        let warm = ContinuousClock.now + .seconds(10)
        while answers.load() < 50 && ContinuousClock.now < warm { Thread.sleep(forTimeInterval: 0.01) }

        let killed = ContinuousClock.now
        cluster.master.kill()
        // Sharing has resumed when a document registered on one proxy is served by the other.
        var gap: Duration?
        var probe = 0
        let deadline = killed + .seconds(30)
        while gap == nil && ContinuousClock.now < deadline {
            probe += 1
            let document = "query Probe\(probe) { launches(pageSize: 1) { cursor } }"
            let name = "Probe\(probe)"
            _ = try proxies[0].client.post("/graphql", json: APQ.registeringPOST(document, operationName: name))
            let served = try proxies[1].client.post("/graphql", json: APQ.hashOnlyPOST(document, operationName: name))
            if served.status == 200 && firstError(served).code == nil {
                gap = ContinuousClock.now - killed
            } else {
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let measured = try #require(gap, "no registration reached the other proxy within 30 s of the failover")
        print(
            "sentinel failover: a registration reached the other proxy \(measured) after the master was killed; "
                + "\(answers.load()) answers so far, \(failures.all.count) client errors")
        try waitUntil(proxies, follow: newMaster, failovers: 1)
        // Traffic goes on a little on the new master.
        let after = answers.load()
        let settle = ContinuousClock.now + .seconds(10)
        while answers.load() < after + 20 && ContinuousClock.now < settle {
            Thread.sleep(forTimeInterval: 0.01)
        }
        stop.store(true)
        traffic.wait()
        #expect(failures.all.isEmpty, "\(failures.all.count) client errors: \(failures.all.prefix(5))")
        #expect(answers.load() > after)
        for proxy in proxies {
            let redis = try #require(try proxy.stats()["redis"] as? [String: Any])
            #expect(redis["connected"] as? Bool == true)
        }
    }

    /// Polls each proxy's `/stats` until its `redis` block names `master` with `failovers`.
    private func waitUntil(_ proxies: [ProxyProcess], follow master: String, failovers: Int) throws {
        let deadline = ContinuousClock.now + .seconds(30)
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            let all = try proxies.allSatisfy { proxy in
                guard let redis = try proxy.stats()["redis"] as? [String: Any] else { return false }
                last = redis
                return redis["master"] as? String == master && redis["failovers"] as? Int == failovers
                    && redis["subscribed"] as? Bool == true
                    && (redis["connections_ready"] as? Int).map { $0 > 0 && $0 == redis["connections"] as? Int } == true
            }
            if all { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        Issue.record("the proxies did not follow \(master) (failovers \(failovers)) within 30 s: \(last)")
    }
}
