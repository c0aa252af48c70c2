// The Cache-Control and Age values Breakwater writes on its own answers (SPEC section 5.2).

import BreakwaterCore
import Testing

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

    /// A hit 20 s into a 60 s entry still says `max-age=60` beside `Age: 20` (SPEC 5.2): a CDN in
    /// front subtracts the age itself.
    @Test func aHitCarriesTheWholeTTLBesideItsAge() {
        let entry = StoreFixture.entry(key: StoreFixture.key(1), ttl: .seconds(60))
        let client = ClientView(isGET: true, ifNoneMatch: [], wantsGraphQLResponseJSON: false, extraHeaders: [:])
        let answer = CacheAnswer.fromEntry(entry, age: .seconds(20), isFresh: true, client: client)
        #expect(answer.headers["Age"] == "20")
        #expect(answer.headers["Cache-Control"]?.hasPrefix("public, max-age=60") == true)
        #expect(answer.headers.fields.filter { $0.name == "Cache-Control" }.count == 1)
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
        let answer = CacheAnswer.bypassed(origin, client: client)
        #expect(answer.status == 502)
        #expect(answer.headers.values(of: "Cache-Control") == ["private, no-store"])
        #expect(answer.headers["X-Cache"] == "BYPASS")
    }
}
