// The response cache against the real binary and demo origin (README "The response cache"): keys, policy,
// headers, conditional requests.

import BreakwaterTesting
import Foundation
import Testing

/// A proxy with cache rules for the demo's operations.
func cachingProxy(
    origin: DemoOriginProcess, extra: String = "", cache: String = "", logLevel: String? = "warning"
) throws -> ProxyProcess {
    let yaml = """
        persisted_queries:
          store: ""
        cache:
          stale_while_revalidate: 10s
          stale_if_error: 5m
        \(cache)
          rules:
            - operation: GetLaunches
              ttl: 30s
            - operation: GetLaunchDetail
              ttl: 30s
            - operation: Slow
              ttl: 30s
            - operation: Me
              ttl: 1m
              scope: per-user
        \(extra)
        """
    return try ProxyProcess(origin: origin.url, yaml: yaml, logLevel: logLevel)
}

@Suite(.serialized) struct CacheTests {
    static let launches = "query GetLaunches($pageSize: Int, $after: String) { launches(pageSize: $pageSize, after: $after) { cursor launches { id } } }"
    static let detail = "query GetLaunchDetail($id: ID!) { launch(id: $id) { id site } }"

    func post(_ proxy: ProxyProcess, _ document: String, variables: String, headers: [(String, String)] = []) throws -> HTTPClientResponse {
        try proxy.client.post("/graphql", json: #"{"query":\#(APQ.jsonString(document)),"variables":\#(variables)}"#, headers: headers)
    }

    func originRequests(_ origin: DemoOriginProcess) throws -> Int { try origin.counters()["requests"] as? Int ?? -1 }

    @Test func missThenHitServesTheStoredBodyWithAgeAndETag() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let miss = try post(proxy, Self.detail, variables: #"{"id":"7"}"#)
        #expect(miss.status == 200)
        #expect(miss.header("X-Cache") == "MISS")
        let hit = try post(proxy, Self.detail, variables: #"{"id":"7"}"#)
        #expect(hit.header("X-Cache") == "HIT")
        #expect(hit.body == miss.body)
        #expect(hit.header("Age") == "0")
        #expect(hit.header("ETag") == miss.header("ETag"))
        #expect(hit.header("ETag")?.hasPrefix("\"") == true)
        #expect(try originRequests(origin) == 1)
    }

    @Test func getAndPostShareOneEntryAndVariablesAreCanonical() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let first = try post(proxy, Self.launches, variables: #"{"pageSize":2,"after":"50"}"#)
        #expect(first.header("X-Cache") == "MISS")
        let reordered = try proxy.client.get(
            "/graphql?" + URLEncoding.queryString([("query", Self.launches), ("variables", #"{ "after" : "50",  "pageSize":2 }"#)]))
        #expect(reordered.header("X-Cache") == "HIT")
        #expect(reordered.body == first.body)
        let different = try post(proxy, Self.launches, variables: #"{"pageSize":3,"after":"50"}"#)
        #expect(different.header("X-Cache") == "MISS")
        #expect(try originRequests(origin) == 2)
    }

    @Test func cacheControlIsPublicOnlyForGETs() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let viaPOST = try post(proxy, Self.detail, variables: #"{"id":"1"}"#)
        #expect(viaPOST.header("Cache-Control") == "private, no-store")
        let viaGET = try proxy.client.get("/graphql?" + URLEncoding.queryString([("query", Self.detail), ("variables", #"{"id":"1"}"#)]))
        #expect(viaGET.header("X-Cache") == "HIT")
        // The whole TTL (not the remaining one, which `Age` already accounts for) and the stale windows.
        #expect(viaGET.header("Cache-Control") == "public, max-age=30, stale-while-revalidate=10, stale-if-error=300")
    }

    @Test func ifNoneMatchWithTheETagGetsNotModified() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let miss = try post(proxy, Self.detail, variables: #"{"id":"2"}"#)
        let etag = try #require(miss.header("ETag"))
        let conditional = try post(proxy, Self.detail, variables: #"{"id":"2"}"#, headers: [("If-None-Match", etag)])
        #expect(conditional.status == 304)
        #expect(conditional.body.isEmpty)
        #expect(conditional.header("ETag") == etag)
        let other = try post(proxy, Self.detail, variables: #"{"id":"2"}"#, headers: [("If-None-Match", "\"nope\"")])
        #expect(other.status == 200)
    }

    @Test func acceptingGraphQLResponseJSONChangesTheContentType() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        _ = try post(proxy, Self.detail, variables: #"{"id":"3"}"#)
        let hit = try post(proxy, Self.detail, variables: #"{"id":"3"}"#, headers: [("Accept", "application/graphql-response+json")])
        #expect(hit.header("Content-Type") == "application/graphql-response+json")
        let plain = try post(proxy, Self.detail, variables: #"{"id":"3"}"#)
        #expect(plain.header("Content-Type") == "application/json")
    }

    @Test func originCacheControlGivesTheTTLWithoutARule() throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(#"{"cacheControl": "public, max-age=60"}"#)
        let proxy = try cachingProxy(origin: origin)
        let document = "query Unruled { launch(id: \"4\") { id } }"
        #expect(try post(proxy, document, variables: "{}").header("X-Cache") == "MISS")
        #expect(try post(proxy, document, variables: "{}").header("X-Cache") == "HIT")
    }

    @Test(arguments: [
        (#"{"cacheControl": "no-store"}"#, "query GetLaunchDetail { launch(id: \"5\") { id } }"),
        (#"{"cacheControl": "private, max-age=60"}"#, "query GetLaunchDetail { launch(id: \"5\") { id } }"),
        (#"{"setCookie": "session=abc"}"#, "query GetLaunchDetail { launch(id: \"5\") { id } }"),
        (#"{}"#, "query GetLaunchDetail { boom }"),
        (#"{}"#, "query Unruled { launch(id: \"5\") { id } }"),
    ])
    func unstorableAnswersAreBypassedEveryTime(faults: String, document: String) throws {
        let origin = try DemoOriginProcess()
        try origin.setFaults(faults)
        let proxy = try cachingProxy(origin: origin)
        for _ in 0..<2 {
            let response = try post(proxy, document, variables: "{}")
            #expect(response.header("X-Cache") == "BYPASS", "\(faults) \(document)")
            #expect(response.header("Cache-Control") == "private, no-store")
        }
        #expect(try originRequests(origin) == 2)
    }

    @Test func mutationsAreNeverCached() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let mutation = #"mutation Login { login(email: "a@b.c") }"#
        for _ in 0..<2 {
            #expect(try post(proxy, mutation, variables: "{}").header("X-Cache") == "BYPASS")
        }
        #expect(try originRequests(origin) == 2)
    }

    @Test func requestsWithPrivateHeadersNeverTouchTheSharedCache() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let stored = try post(proxy, Self.detail, variables: #"{"id":"6"}"#)
        #expect(stored.header("X-Cache") == "MISS")
        for header in [("Authorization", "ada@example.com"), ("Cookie", "session=1")] {
            let response = try post(proxy, Self.detail, variables: #"{"id":"6"}"#, headers: [header])
            #expect(response.header("X-Cache") == "BYPASS", "\(header.0)")
        }
        #expect(try originRequests(origin) == 3)
        // And a private request stored nothing: the shared entry is still the first one.
        #expect(try post(proxy, Self.detail, variables: #"{"id":"6"}"#).header("X-Cache") == "HIT")
    }

    @Test func perUserScopeKeepsEachUsersDataToThemselves() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let me = "query Me { me { email } }"
        func email(_ response: HTTPClientResponse) -> String? { (response.data?["me"] as? [String: Any])?["email"] as? String }
        let ada = try post(proxy, me, variables: "{}", headers: [("Authorization", "ada@example.com")])
        #expect(ada.header("X-Cache") == "MISS")
        #expect(email(ada) == "ada@example.com")
        let bob = try post(proxy, me, variables: "{}", headers: [("Authorization", "bob@example.com")])
        #expect(bob.header("X-Cache") == "MISS")
        #expect(email(bob) == "bob@example.com")
        let adaAgain = try proxy.client.get(
            "/graphql?" + URLEncoding.queryString([("query", me)]), headers: [("Authorization", "ada@example.com")])
        #expect(adaAgain.header("X-Cache") == "HIT")
        #expect(email(adaAgain) == "ada@example.com")
        #expect(adaAgain.header("Cache-Control") == "private, no-store")
        let anonymous = try post(proxy, me, variables: "{}")
        #expect(email(anonymous) == nil)
        #expect(try originRequests(origin) == 3)
    }
}

@Suite(.serialized) struct CacheBoundTests {
    @Test func storedBytesStayWithinMaxBytesUnderChurn() throws {
        let origin = try DemoOriginProcess()
        let proxy = try ProxyProcess(origin: origin.url, yaml: """
            persisted_queries:
              store: ""
            cache:
              max_bytes: 64KiB
              rules:
                - operation: GetLaunches
                  ttl: 1h
            """)
        let document = "query GetLaunches($after: String) { launches(pageSize: 5, after: $after) { cursor launches { id site mission { name } } } }"
        for round in 0..<3 {
            for id in 1...100 {
                let response = try proxy.client.post(
                    "/graphql", json: #"{"query":\#(APQ.jsonString(document)),"variables":{"after":"\#(id)"}}"#)
                #expect(response.status == 200)
                _ = round
            }
            let cache = try #require(try proxy.stats()["cache"] as? [String: Any])
            let bytes = try #require(cache["bytes"] as? Int)
            #expect(bytes <= 64 * 1024, "round \(round): \(bytes) bytes stored")
            #expect((cache["max_bytes"] as? Int) == 64 * 1024)
        }
        let cache = try #require(try proxy.stats()["cache"] as? [String: Any])
        #expect((cache["evictions"] as? Int ?? 0) > 0)
        #expect((cache["entries"] as? Int ?? 0) > 10)
    }
}

@Suite(.serialized) struct MutationInvalidationTests {
    static let detail = #"{"query":"query GetLaunchDetail { launch(id: \"33\") { __typename id isBooked } }"}"#
    static let other = #"{"query":"query GetLaunchDetail { launch(id: \"34\") { __typename id isBooked } }"}"#
    static let book = #"{"query":"mutation Book { bookTrips(launchIds: [\"33\"]) { success launches { __typename id isBooked } } }"}"#

    func isBooked(_ response: HTTPClientResponse) -> Bool? {
        (response.data?["launch"] as? [String: Any])?["isBooked"] as? Bool
    }

    @Test func aMutationPurgesTheEntitiesItReturns() throws {
        let origin = try DemoOriginProcess()
        // No schema: the tags are the ones the client selected, whenever the entries are stored
        // (with one expected, an entry stored before it arrives is reached by every entity purge).
        let proxy = try cachingProxy(origin: origin, extra: "origin:\n  schema: \"off\"", logLevel: "notice")
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "MISS")
        #expect(try proxy.client.post("/graphql", json: Self.other).header("X-Cache") == "MISS")
        #expect(isBooked(try proxy.client.post("/graphql", json: Self.detail)) == false)
        // Booking needs a user; the launch's public entry is what the mutation must purge.
        let booked = try proxy.client.post("/graphql", json: Self.book, headers: [("Authorization", "ada@example.com")])
        #expect(booked.status == 200)
        let after = try proxy.client.post("/graphql", json: Self.detail)
        #expect(after.header("X-Cache") == "MISS", "Launch:33 was purged")
        #expect(try proxy.client.post("/graphql", json: Self.other).header("X-Cache") == "HIT", "Launch:34 was not")
        // Logged as an admin purge is, with its cause.
        let line = try proxy.process.waitForLine(containing: "cause=mutation", timeout: .seconds(10))
        #expect(line.contains("purge") && line.contains("operation=Book") && line.contains("what=Launch:33"), "\(line)")
        #expect(line.contains("purged=1"), "\(line)")
    }

    /// A purge applied while an answer is fetched reaches that answer too: it was read before the
    /// change the purge announces, so it is not stored (else it would be a HIT for its whole TTL).
    @Test func anAnswerFetchedAcrossAPurgeIsNotStored() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin)
        let slow = #"{"query":"query Slow { slow(ms: 1500) }"}"#
        let answer = Collected<HTTPClientResponse?>()
        let fetching = Thread { answer.append(try? proxy.client.post("/graphql", json: slow)) }
        fetching.start()
        #expect(try eventually { try origin.requests("Slow") == 1 }, "the fetch is under way")
        let purged = try proxy.admin.post("/purge", json: #"{"operation":"Slow"}"#)
        #expect(purged.text == #"{"purged":0}"#, "nothing stored yet: \(purged.text)")
        #expect(try eventually(within: .seconds(10)) { answer.all.count == 1 })
        let first = try #require(answer.all.first ?? nil)
        #expect(first.status == 200)
        #expect(first.header("X-Cache") == "BYPASS", "\(first)")
        let next = try proxy.client.post("/graphql", json: slow)
        #expect(next.header("X-Cache") == "MISS", "the answer fetched across the purge was not stored")
        #expect(try proxy.client.post("/graphql", json: slow).header("X-Cache") == "HIT")
    }

    @Test func switchedOffAMutationPurgesNothing() throws {
        let origin = try DemoOriginProcess()
        let proxy = try cachingProxy(origin: origin, cache: "  invalidate_on_mutation: false")
        _ = try proxy.client.post("/graphql", json: Self.detail)
        _ = try proxy.client.post("/graphql", json: Self.book, headers: [("Authorization", "ada@example.com")])
        #expect(try proxy.client.post("/graphql", json: Self.detail).header("X-Cache") == "HIT")
    }
}
