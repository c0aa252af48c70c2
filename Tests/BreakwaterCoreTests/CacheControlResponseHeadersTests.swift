// The Cache-Control and Age values Breakwater writes on its own answers (README "The response cache").

import BreakwaterCore
import Testing
import BreakwaterFixtures

struct CacheControlResponseHeadersTests {
    @Test(arguments: [
        (Duration.seconds(30), "public, max-age=30"),
        (.milliseconds(29_999), "public, max-age=29"),
        (.milliseconds(999), "public, max-age=0"),
        (.zero, "public, max-age=0"),
        (.milliseconds(-1_500), "public, max-age=0"),
    ])
    func publicGETAdvertisesTheWholeTTLInSeconds(ttl: Duration, expected: String) {
        #expect(CacheResponseHeaders.cacheControl(isPublicGET: true, ttl: ttl) == expected)
    }

    @Test func staleWindowsArePassedOnWhenSet() {
        #expect(
            CacheResponseHeaders.cacheControl(
                isPublicGET: true, ttl: .seconds(60), staleWhileRevalidate: .seconds(10), staleIfError: .seconds(300))
                == "public, max-age=60, stale-while-revalidate=10, stale-if-error=300")
        #expect(
            CacheResponseHeaders.cacheControl(isPublicGET: true, ttl: .seconds(60), staleIfError: .seconds(300))
                == "public, max-age=60, stale-if-error=300")
        #expect(
            CacheResponseHeaders.cacheControl(isPublicGET: true, ttl: .seconds(60), staleWhileRevalidate: .seconds(10))
                == "public, max-age=60, stale-while-revalidate=10")
    }

    @Test func everythingElseIsPrivateNoStore() {
        #expect(
            CacheResponseHeaders.cacheControl(isPublicGET: false, ttl: .seconds(30), staleWhileRevalidate: .seconds(10))
                == "private, no-store")
    }

    /// A hit 20 s into a 60 s entry still says `max-age=60` beside `Age: 20` (README "The response cache"): a CDN in
    /// front subtracts the age itself.
    @Test func aHitCarriesTheWholeTTLBesideItsAge() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        let client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
        let answer = ClientAnswer.fromEntry(entry, age: .seconds(20), isFresh: true, client: client)
        #expect(answer.headers["Age"] == "20")
        #expect(answer.headers["Cache-Control"]?.hasPrefix("public, max-age=60") == true)
        #expect(answer.headers.fields.filter { $0.name == "Cache-Control" }.count == 1)
    }

    /// A stale answer (past its TTL, or soft-purged) says `max-age=0`, keeping the stale
    /// windows: a cache in front must not store it as fresh.
    @Test(arguments: [false, true])
    func aStaleAnswerCarriesMaxAgeZero(sendsRemainingTTL: Bool) {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(300))
        var client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
        client.sendsRemainingTTL = sendsRemainingTTL
        let answer = ClientAnswer.fromEntry(entry, age: .seconds(31), isFresh: false, client: client)
        #expect(answer.headers["X-Cache"] == "STALE")
        let cacheControl = answer.headers["Cache-Control"] ?? ""
        #expect(cacheControl.hasPrefix("public, max-age=0"), "\(cacheControl)")
        #expect(cacheControl == entry.staleCacheControl)
        #expect(answer.headers["Age"] == (sendsRemainingTTL ? nil : "31"))
    }

    /// `cache.downstream_age: remaining`, for caches in front that ignore `Age` (nginx): the TTL
    /// left in `max-age`, floored, and no `Age`.
    @Test(arguments: [(Duration.seconds(20), "40"), (.milliseconds(59_500), "0"), (.zero, "60")])
    func remainingModeSendsTheTTLLeftWithoutAge(age: Duration, maxAge: String) {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        var client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
        client.sendsRemainingTTL = true
        let answer = ClientAnswer.fromEntry(entry, age: age, isFresh: true, client: client)
        #expect(answer.headers["Age"] == nil)
        #expect(answer.headers["Cache-Control"]?.hasPrefix("public, max-age=\(maxAge)") == true, "\(answer.headers)")
        // A POST or per-user answer stays private whatever the mode.
        client.isGET = false
        #expect(ClientAnswer.fromEntry(entry, age: age, isFresh: true, client: client).headers["Cache-Control"] == "private, no-store")
    }

    @Test(arguments: [
        (Duration.zero, "0"), (.milliseconds(1_999), "1"), (.seconds(3_600), "3600"), (.seconds(-2), "0"),
    ])
    func ageIsWholeSecondsFloored(age: Duration, expected: String) {
        #expect(CacheResponseHeaders.age(age) == expected)
    }
}

/// The probe's "a 502 carries two Cache-Control headers": an origin 5xx without a GraphQL body is
/// rewritten into Breakwater's own 502 (with `Cache-Control: no-store`), then dressed as BYPASS.
struct BypassedAnswerReliabilityTests {
    @Test func originErrorWithoutAGraphQLBodyCarriesOneCacheControl() {
        let origin = HTTPResponse(status: 503, headers: ["Content-Type": "text/html"], body: Array("<h1>down</h1>".utf8))
        let client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
        let answer = ClientAnswer.bypassed(origin, client: client)
        #expect(answer.status == 502)
        #expect(answer.headers.values(of: "Cache-Control") == ["private, no-store"])
        #expect(answer.headers["X-Cache"] == "BYPASS")
    }
}
