// The calls each kind of target makes (docs/CDN.md): method, URL, headers and body, and how
// batches are split to fit each API.

import BreakwaterCore
import BreakwaterFixtures
import Testing

struct CDNTargetRequestsTests {
    static func batch(hard: [String] = [], soft: [String] = [], everything: Bool? = nil) -> CDNBatch {
        var batch = CDNBatch()
        if !hard.isEmpty { batch.add(.tags(hard, soft: false)) }
        if !soft.isEmpty { batch.add(.tags(soft, soft: true)) }
        if let everything { batch.add(.everything(soft: everything)) }
        return batch
    }

    static let fastly = CDNTarget.fastly(
        serviceID: "SU1Z0isxPaozGVKXdv0eY", token: "fastly-token-123", soft: false, apiURL: CDNTarget.fastlyAPI)
    static let cloudflare = CDNTarget.cloudflare(
        zoneID: "023e105f4ecef8ad9ca31a8372d0c353", token: "cf-token-123", apiURL: CDNTarget.cloudflareAPI)

    @Test func varnishPurgesEachURLWithXkeyHeaders() {
        let target = CDNTarget.varnish(urls: [
            OriginURL(parsing: "http://10.0.0.1:6081/")!, OriginURL(parsing: "http://10.0.0.2/purge")!,
        ])
        let requests = target.requests(for: Self.batch(hard: ["Launch:1", "op:GetLaunch"], soft: ["Launch"]))
        #expect(requests.map(\.method) == ["PURGE", "PURGE", "PURGE", "PURGE"])
        #expect(requests.map(\.url.description) == [
            "http://10.0.0.1:6081/", "http://10.0.0.2/purge", "http://10.0.0.1:6081/", "http://10.0.0.2/purge",
        ])
        #expect(requests[0].headers["xkey-purge"] == "Launch:1 op:GetLaunch")
        #expect(requests[0].headers["xkey-softpurge"] == nil)
        #expect(requests[2].headers["xkey-softpurge"] == "Launch")
        #expect(requests.allSatisfy { $0.body.isEmpty })
    }

    @Test func varnishBansEverything() {
        let target = CDNTarget.varnish(urls: [OriginURL(parsing: "http://10.0.0.1:6081/")!])
        let requests = target.requests(for: Self.batch(everything: false))
        #expect(requests.map(\.method) == ["BAN"])
        #expect(requests[0].purges == 1)
    }

    @Test func varnishSplitsLongTagListsWithinItsHeaderLimit() {
        let target = CDNTarget.varnish(urls: [OriginURL(parsing: "http://10.0.0.1:6081/")!])
        let tags = (0..<1000).map { "Launch:\($0)" }
        let requests = target.requests(for: Self.batch(hard: tags))
        #expect(requests.count > 1)
        #expect(requests.allSatisfy { ($0.headers["xkey-purge"]?.utf8.count ?? 0) <= CDNTarget.tagHeaderBytesPerCall })
        #expect(requests.flatMap { $0.headers["xkey-purge"]!.split(separator: " ").map(String.init) } == tags)
        #expect(requests.map(\.purges).reduce(0, +) == 1000)
    }

    @Test func fastlyPurgesBySurrogateKey() {
        let requests = Self.fastly.requests(for: Self.batch(hard: ["Launch:1", "Launch:2"], soft: ["Launch"]))
        #expect(requests.count == 2)
        #expect(requests[0].method == "POST")
        #expect(requests[0].url.description == "https://api.fastly.com/service/SU1Z0isxPaozGVKXdv0eY/purge")
        #expect(requests[0].headers["Surrogate-Key"] == "Launch:1 Launch:2")
        #expect(requests[0].headers["Fastly-Key"] == "fastly-token-123")
        #expect(requests[0].headers["Fastly-Soft-Purge"] == nil)
        #expect(requests[1].headers["Surrogate-Key"] == "Launch")
        #expect(requests[1].headers["Fastly-Soft-Purge"] == "1")
    }

    @Test func fastlyWithSoftSetPurgesEverythingSoftly() {
        let target = CDNTarget.fastly(serviceID: "svc", token: "t", soft: true, apiURL: CDNTarget.fastlyAPI)
        #expect(target.requests(for: Self.batch(hard: ["Launch:1"]))[0].headers["Fastly-Soft-Purge"] == "1")
    }

    @Test func fastlyPurgeAll() {
        let requests = Self.fastly.requests(for: Self.batch(everything: true))
        #expect(requests.map(\.url.description) == ["https://api.fastly.com/service/SU1Z0isxPaozGVKXdv0eY/purge_all"])
        #expect(requests[0].headers["Fastly-Key"] == "fastly-token-123")
    }

    @Test func fastlySplitsAt256Keys() {
        let requests = Self.fastly.requests(for: Self.batch(hard: (0..<300).map { "T:\($0)" }))
        #expect(requests.map(\.purges) == [256, 44])
    }

    @Test func cloudflarePurgesTagsWithinItsPerCallLimit() {
        let tags = (0..<250).map { "Launch:\($0)" }
        let requests = Self.cloudflare.requests(for: Self.batch(hard: tags))
        #expect(requests.map(\.purges) == [100, 100, 50])
        #expect(requests.allSatisfy { $0.method == "POST" })
        #expect(
            requests[0].url.description
                == "https://api.cloudflare.com/client/v4/zones/023e105f4ecef8ad9ca31a8372d0c353/purge_cache")
        #expect(requests[0].headers["Authorization"] == "Bearer cf-token-123")
        #expect(requests[0].headers["Content-Type"] == "application/json")
        #expect(requests[2].bodyText == #"{"tags":["# + (200..<250).map { "\"Launch:\($0)\"" }.joined(separator: ",") + "]}")
    }

    @Test func cloudflarePurgeEverything() {
        let requests = Self.cloudflare.requests(for: Self.batch(everything: false))
        #expect(requests.map(\.bodyText) == [#"{"purge_everything":true}"#])
    }

    @Test func webhookCarriesTagsSoftAndAll() {
        let target = CDNTarget.http(url: OriginURL(parsing: "https://hooks.example.com/purge?x=1")!, token: "hook-token")
        let requests = target.requests(for: Self.batch(hard: ["Launch:1"], soft: ["Launch:\"2\""]))
        #expect(requests.map(\.bodyText) == [
            #"{"tags":["Launch:1"],"soft":false,"all":false}"#, #"{"tags":["Launch:\"2\""],"soft":true,"all":false}"#,
        ])
        #expect(requests[0].url.path == "/purge?x=1")
        #expect(requests[0].headers["Authorization"] == "Bearer hook-token")
        let all = target.requests(for: Self.batch(everything: true))
        #expect(all.map(\.bodyText) == [#"{"tags":[],"soft":true,"all":true}"#])
        let anonymous = CDNTarget.http(url: OriginURL(parsing: "http://127.0.0.1:9/")!, token: "")
        #expect(anonymous.requests(for: Self.batch(hard: ["a"]))[0].headers["Authorization"] == nil)
    }

    @Test func apiURLReplacesTheVendorsBase() {
        let target = CDNTarget.fastly(
            serviceID: "svc", token: "t", soft: false, apiURL: OriginURL(parsing: "https://127.0.0.1:8443/fastly/")!)
        #expect(target.requests(for: Self.batch(hard: ["a"]))[0].url.description == "https://127.0.0.1:8443/fastly/service/svc/purge")
    }

    @Test(arguments: [
        (PurgeRequest(selector: .operation("GetLaunch"), soft: false), CDNPurge.tags(["op:GetLaunch"], soft: false)),
        (PurgeRequest(selector: .tag("Launch:92"), soft: true), CDNPurge.tags(["Launch:92"], soft: true)),
        (PurgeRequest(selector: .tag("Launch"), soft: false), CDNPurge.tags(["Launch"], soft: false)),
        (PurgeRequest(selector: .all, soft: false), CDNPurge.everything(soft: false)),
    ])
    func purgesBecomeTheTagsTheHeaderCarries(purge: PurgeRequest, expected: CDNPurge) {
        #expect(CDNPurge(purge) == expected)
    }

    @Test func documentPurgeUsesTheHashTag() {
        let digest = SoftwareSHA256().sha256("{ launches { id } }")
        #expect(CDNPurge(PurgeRequest(selector: .document(digest), soft: false)) == .tags(["hash:" + digest.hex], soft: false))
    }

    @Test func tagsNoHeaderCanCarryAreNotSent() {
        #expect(CDNPurge(PurgeRequest(selector: .operation("Get Launch"), soft: false)) == nil)
        #expect(CDNPurge(PurgeRequest(selector: .tag("Launch:a,b"), soft: false)) == nil)
        #expect(CDNPurge(PurgeRequest(selector: .tag("Launch:é"), soft: false)) == nil)
    }

    @Test func labelsNumberTargetsOfOneKind() {
        let varnish = CDNTarget.varnish(urls: [OriginURL(parsing: "http://a/")!])
        #expect(CDNTarget.labels(of: [varnish, Self.fastly, varnish, varnish]) == ["varnish", "fastly", "varnish-2", "varnish-3"])
    }
}
