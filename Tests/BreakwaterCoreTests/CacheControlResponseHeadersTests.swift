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
    func publicGETAdvertisesWholeRemainingSeconds(remaining: Duration, expected: String) {
        #expect(CacheResponseHeaders.cacheControl(isPublicGET: true, remaining: remaining) == expected)
    }

    @Test func everythingElseIsPrivateNoStore() {
        #expect(CacheResponseHeaders.cacheControl(isPublicGET: false, remaining: .seconds(30)) == "private, no-store")
    }

    @Test(arguments: [
        (Duration.zero, "0"), (.milliseconds(1_999), "1"), (.seconds(3_600), "3600"), (.seconds(-2), "0"),
    ])
    func ageIsWholeSecondsFloored(age: Duration, expected: String) {
        #expect(CacheResponseHeaders.age(age) == expected)
    }
}
