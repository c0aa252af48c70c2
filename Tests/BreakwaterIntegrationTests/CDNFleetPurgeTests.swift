// In a fleet each purge reaches the cache in front once (docs/CDN.md, its opening: "In a fleet"): sent by the
// proxy where it started, never again by the proxies that learn it over Redis.

import BreakwaterTesting
import Foundation
import Testing

@Suite(
    .serialized, .enabled(if: VarnishInFront.binary != nil, "varnishd is not installed (scripts/install-deps.sh)"))
struct CDNFleetPurgeTests {
    @Test func aPurgeStartedOnOneProxyOfThreeReachesVarnishExactlyOnce() throws {
        let varnish = try VarnishInFront()
        let fleet = try FleetStack(
            proxies: 3, extraCache: "  tag_header: xkey",
            extraSections: "\ncdn:\n  targets:\n    - kind: varnish\n      urls: [\"\(varnish.purgeURL)\"]\n  batch_window: 10ms\n")
        try fleet.waitUntilConnected()
        try varnish.start(backendPort: fleet.proxies[0].port)
        let document = FleetStack.detail, variables = #"{"id":"7"}"#
        let registered = try fleet.proxies[0].client.post(
            "/graphql", json: APQ.registeringPOST(document, operationName: "GetLaunchDetail", variables: variables))
        #expect(registered.status == 200)
        let target = APQ.hashedGET(document, operationName: "GetLaunchDetail", variables: variables)
        _ = try varnish.client.get(target)
        #expect(try varnish.client.get(target).header("X-Edge-Cache") == "HIT")

        #expect(try varnish.loggedRequests(method: "PURGE") == 0)
        let purged = try fleet.proxies[1].admin.post("/purge", json: #"{"type":"Launch","id":"7"}"#)
        #expect(purged.status == 200)
        // Sent by proxy 1, and applied by the two others through Redis.
        #expect(try eventually {
            let sent = try Self.cdn(fleet.proxies[1])["sent"] as? Int == 1
            let applied = try [0, 2].allSatisfy { index in
                let redis = try fleet.proxies[index].stats()["redis"] as? [String: Any]
                return (redis?["purges_applied"] as? Int ?? 0) >= 1
            }
            let arrived = try varnish.loggedRequests(method: "PURGE") >= 1
            return sent && applied && arrived
        })
        // The others applied it without handing it to their purgers: nothing more will come.
        for index in [0, 2] {
            #expect(try Self.cdn(fleet.proxies[index])["purges"] as? Int == 0, "proxy \(index) queued nothing")
        }
        #expect(try Self.cdn(fleet.proxies[1])["purges"] as? Int == 1)
        #expect(try varnish.loggedRequests(method: "PURGE") == 1, "one PURGE reached Varnish")
        #expect(try varnish.client.get(target).header("X-Edge-Cache") == "MISS")
    }

    static func cdn(_ proxy: ProxyProcess) throws -> [String: Any] {
        try #require((try proxy.stats()["cdn"] as? [String: Any])?["varnish"] as? [String: Any])
    }
}
