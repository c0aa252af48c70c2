// A real Varnish with xkey in front of Breakwater, set up as docs/CDN.md says: hashed GETs are
// cached there, and every purge Breakwater makes (a mutation's entities, admin purges by
// operation, entity or everything, soft or hard) reaches it, so the next GET through Varnish
// goes to Breakwater again.

import BreakwaterTesting
import Foundation
import Testing

/// A demo origin, Breakwater tagging answers in `xkey` and purging Varnish, and Varnish in front.
final class VarnishStack: @unchecked Sendable {
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { __typename id site } }"

    let origin: DemoOriginProcess
    let varnish: VarnishInFront
    let proxy: ProxyProcess

    /// `purgeURL`: where Breakwater sends its purges, when not to `varnish` itself (a relay).
    init(
        originURL: String? = nil, batchWindow: String = "10ms", varnish: VarnishInFront? = nil, purgeURL: String? = nil
    ) throws {
        origin = try DemoOriginProcess()
        let varnish = try varnish ?? VarnishInFront()
        self.varnish = varnish
        proxy = try ProxyProcess(
            origin: originURL ?? origin.url,
            yaml: Self.yaml(varnish: varnish, batchWindow: batchWindow, purgeURL: purgeURL))
        try varnish.start(backendPort: proxy.port)
    }

    static func yaml(
        varnish: VarnishInFront, batchWindow: String = "10ms", extra: String = "", purgeURL: String? = nil
    ) -> String {
        """
        origin:
          schema: "off"
        persisted_queries:
          store: ""
        cache:
          tag_header: xkey
          stale_while_revalidate: 30s
          rules:
            - operation: GetLaunchDetail
              ttl: 5m
            - operation: GetBook
              ttl: 5m
        cdn:
          targets:
            - kind: varnish
              urls: ["\(purgeURL ?? varnish.purgeURL)"]
          batch_window: \(batchWindow)
        """ + extra
    }

    /// The hashed GET of launch `id`'s detail (registered with Breakwater first).
    func detailGET(_ id: String) throws -> String {
        let post = try proxy.client.post(
            "/graphql", json: APQ.registeringPOST(Self.detail, operationName: "GetLaunchDetail", variables: #"{"id":"\#(id)"}"#))
        #expect(post.status == 200, "\(post)")
        return APQ.hashedGET(Self.detail, operationName: "GetLaunchDetail", variables: #"{"id":"\#(id)"}"#)
    }

    func edge(_ target: String) throws -> HTTPClientResponse {
        let response = try varnish.client.get(target)
        #expect(response.status == 200, "\(response)")
        return response
    }

    /// Client requests Breakwater answered so far.
    func proxyRequests() throws -> Int { try proxy.stats()["requests"] as? Int ?? -1 }

    func cdnFigures() throws -> [String: Any] {
        try #require((try proxy.stats()["cdn"] as? [String: Any])?["varnish"] as? [String: Any])
    }

    /// Waits until the next GET of `target` through Varnish misses there (a purge is sent
    /// after the admin answer, on the purger's own loop); returns that answer.
    func waitForEdgeMiss(_ target: String) throws -> HTTPClientResponse? {
        var miss: HTTPClientResponse?
        #expect(try eventually {
            let response = try edge(target)
            if response.header("X-Edge-Cache") == "MISS" { miss = response }
            return miss != nil
        })
        return miss
    }

    func purge(_ json: String) throws {
        let response = try proxy.admin.post("/purge", json: json)
        #expect(response.status == 200, "\(response)")
    }
}

@Suite(
    .serialized, .enabled(if: VarnishInFront.binary != nil, "varnishd is not installed (scripts/install-deps.sh)"))
struct VarnishPurgeTests {
    @Test func aHashedGETIsAVarnishHitTheSecondTime() throws {
        let stack = try VarnishStack()
        let target = try stack.detailGET("7")
        let first = try stack.edge(target)
        #expect(first.header("X-Edge-Cache") == "MISS")
        #expect(first.header("xkey") == nil, "the tags are for Varnish only")
        let before = try stack.proxyRequests()
        let second = try stack.edge(target)
        #expect(second.header("X-Edge-Cache") == "HIT")
        #expect(second.text == first.text)
        #expect(try stack.proxyRequests() == before, "Varnish answered alone")
    }

    @Test func purgeByEntityReachesVarnishAndLeavesOtherEntities() throws {
        let stack = try VarnishStack()
        let seven = try stack.detailGET("7"), eight = try stack.detailGET("8")
        for target in [seven, eight] {
            _ = try stack.edge(target)
            #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT")
        }
        try stack.purge(#"{"type":"Launch","id":"7"}"#)
        #expect(try stack.waitForEdgeMiss(seven) != nil)
        #expect(try stack.edge(eight).header("X-Edge-Cache") == "HIT", "Launch:8 was not purged")
        let figures = try stack.cdnFigures()
        #expect(figures["sent"] as? Int == 1)
        #expect(figures["failed"] as? Int == 0)
    }

    @Test func adminPurgeByOperationAndEverythingReachVarnish() throws {
        let stack = try VarnishStack()
        let target = try stack.detailGET("9")
        _ = try stack.edge(target)
        #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT")
        try stack.purge(#"{"operation":"GetLaunchDetail"}"#)
        #expect(try stack.waitForEdgeMiss(target) != nil)
        #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT")
        try stack.purge(#"{"all":true}"#)
        #expect(try stack.waitForEdgeMiss(target) != nil, "BAN of everything")
    }

    @Test func softPurgeMakesVarnishRevalidate() throws {
        let stack = try VarnishStack()
        let target = try stack.detailGET("10")
        _ = try stack.edge(target)
        #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT")
        let before = try stack.proxyRequests()
        try stack.purge(#"{"type":"Launch","id":"10","soft":true}"#)
        #expect(try eventually { try stack.cdnFigures()["sent"] as? Int == 1 }, "the soft purge reached Varnish")
        // Soft-purged in Varnish: served from grace while Varnish fetches it again from Breakwater.
        let fetchesBefore = try stack.varnish.finishedFetches()
        #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT", "served from grace")
        #expect(try eventually { try stack.varnish.finishedFetches() > fetchesBefore }, "Varnish fetched it again")
        #expect(try stack.proxyRequests() > before, "Varnish revalidated with Breakwater")
        // That fetch may have found Breakwater's own entry soft-purged too: a STALE answer
        // (max-age=0, stale-while-revalidate), which the VCL keeps in grace, so the next
        // request is still answered at once by Varnish.
        #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT", "the refetched answer is served")
    }

    @Test func purgesWaitingForTheirWindowAreSentWhenTheProxyStops() throws {
        let stack = try VarnishStack(batchWindow: "30s")
        try stack.purge(#"{"type":"Launch","id":"3"}"#)
        #expect(try stack.varnish.loggedRequests(method: "PURGE") == 0, "the window is still open")
        stack.proxy.process.signal(SIGTERM)
        #expect(stack.proxy.process.waitForExit(timeout: .seconds(15)) == 0)
        #expect(try stack.varnish.loggedRequests(method: "PURGE") == 1)
    }

    /// Varnish out of reach for 5 s (its link cut, so it keeps the answers it holds): the purges
    /// made meanwhile are retried past `cdn.retries` (3, about 1.75 s) while Varnish may still hold
    /// what they purge (5 minutes here), and reach it once the link is back.
    @Test func purgesMadeWhileVarnishIsOutOfReachReachItOnceItIsBack() throws {
        let varnish = try VarnishInFront()
        let link = try SlowLinkRelay(to: varnish.port)
        defer { link.stop() }
        let stack = try VarnishStack(varnish: varnish, purgeURL: "http://127.0.0.1:\(link.port)/")
        let ids = ["21", "22", "23"]
        let targets = try ids.map { try stack.detailGET($0) }
        for target in targets {
            _ = try stack.edge(target)
            #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT")
        }
        link.setCut(true)
        let cut = ContinuousClock.now
        for id in ids { try stack.purge(#"{"type":"Launch","id":"\#(id)"}"#) }
        // Past the 3 retries, and 5 s out of reach in all.
        #expect(try eventually(within: .seconds(30), every: .milliseconds(100)) {
            (try stack.cdnFigures()["retried"] as? Int ?? 0) > 3 && ContinuousClock.now - cut >= .seconds(5)
        })
        #expect(try stack.cdnFigures()["failed"] as? Int == 0, "nothing given up while Varnish may hold it")
        for target in targets {
            #expect(try stack.edge(target).header("X-Edge-Cache") == "HIT", "not purged while out of reach")
        }
        link.setCut(false)
        for target in targets {
            var missed = false
            #expect(try eventually(within: .seconds(20), every: .milliseconds(100)) {
                missed = try stack.edge(target).header("X-Edge-Cache") == "MISS"
                return missed
            }, "the purge reached Varnish once it was back")
        }
        #expect(try stack.cdnFigures()["failed"] as? Int == 0)
    }

    @Test func aFailingVarnishIsRetriedCountedAndLogged() throws {
        let varnish = try VarnishInFront()  // never started: every call is refused
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(
            origin: origin.url,
            yaml: VarnishStack.yaml(varnish: varnish, extra: "\n  retries: 1\n"), logLevel: "warning")
        let response = try proxy.admin.post("/purge", json: #"{"type":"Launch","id":"1"}"#)
        #expect(response.status == 200, "a CDN failure never fails the purge")
        var figures: [String: Any] = [:]
        #expect(try eventually {
            figures = (try proxy.stats()["cdn"] as? [String: Any])?["varnish"] as? [String: Any] ?? [:]
            return figures["failed"] as? Int == 1
        })
        #expect(figures["retried"] as? Int == 1)
        #expect(figures["sent"] as? Int == 0)
        let lastError = figures["last_error"] as? String ?? ""
        #expect(lastError.contains("the CDN target varnish"), "the error names the target: \(lastError)")
        _ = try proxy.process.waitForLine(containing: "cdn purge failed", timeout: .seconds(5))
        let metrics = try proxy.admin.get("/metrics").text
        #expect(metrics.contains(#"breakwater_cdn_purges_total{target="varnish",result="failed"} 1"#))
        #expect(metrics.contains(#"breakwater_cdn_purges_total{target="varnish",result="retried"} 1"#))
        #expect(metrics.contains(#"breakwater_cdn_purge_duration_seconds_count{target="varnish"}"#))
    }
}

/// A mutation through Varnish and Breakwater to a third-party origin whose data it changes.
@Suite(
    .serialized,
    .enabled(if: VarnishInFront.binary != nil, "varnishd is not installed (scripts/install-deps.sh)"),
    .enabled(if: StrawberryOrigin.isAvailable, "strawberry-graphql is not installed: run `make python-deps`"))
struct VarnishMutationTests {
    static let book = "query GetBook { book(id: \"b1\") { __typename id title } }"
    static let rename = #"{"query":"mutation Rename { renameBook(id: \"b1\", title: \"Four Ways to Forgiveness\") { __typename id title } }"}"#

    @Test func aMutationThroughVarnishMakesTheNextGETFetchTheNewData() throws {
        let origin = try StrawberryOrigin()
        let varnish = try VarnishInFront()
        let proxy = try ProxyProcess(origin: origin.url, yaml: VarnishStack.yaml(varnish: varnish))
        try varnish.start(backendPort: proxy.port)
        #expect(try proxy.client.post("/graphql", json: APQ.registeringPOST(Self.book, operationName: "GetBook")).status == 200)
        let target = APQ.hashedGET(Self.book, operationName: "GetBook")
        _ = try varnish.client.get(target)
        let cached = try varnish.client.get(target)
        #expect(cached.header("X-Edge-Cache") == "HIT")
        #expect(cached.text.contains("The Dispossessed"))
        // The mutation goes through Varnish (a POST: passed) to Breakwater, which purges Book:b1.
        let renamed = try varnish.client.post("/graphql", json: Self.rename)
        #expect(renamed.status == 200, "\(renamed)")
        #expect(renamed.text.contains("Four Ways to Forgiveness"))
        var after: HTTPClientResponse?
        #expect(try eventually {
            let response = try varnish.client.get(target)
            if response.header("X-Edge-Cache") == "MISS" { after = response }
            return after != nil
        })
        #expect(after?.text.contains("Four Ways to Forgiveness") == true, "\(after?.text ?? "")")
    }
}
