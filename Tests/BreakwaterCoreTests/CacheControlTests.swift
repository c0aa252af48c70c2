// Parsing of the origin's Cache-Control header: every way a real (or broken) origin writes it.

import BreakwaterCore
import Testing

struct CacheControlTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var headerValues: [String]
        var expected: CacheControl
        var testDescription: String { headerValues.description }
    }

    static func directives(
        maxAge: Int? = nil, sharedMaxAge: Int? = nil, noStore: Bool = false, isPrivate: Bool = false,
        noCache: Bool = false, isPublic: Bool = false
    ) -> CacheControl {
        var cacheControl = CacheControl()
        cacheControl.maxAge = maxAge
        cacheControl.sharedMaxAge = sharedMaxAge
        cacheControl.noStore = noStore
        cacheControl.isPrivate = isPrivate
        cacheControl.noCache = noCache
        cacheControl.isPublic = isPublic
        return cacheControl
    }

    static let cases: [Case] = [
        Case(headerValues: [], expected: directives()),
        Case(headerValues: ["max-age=60"], expected: directives(maxAge: 60)),
        Case(headerValues: ["  MAX-AGE = 60 ,\tPublic  "], expected: directives(maxAge: 60, isPublic: true)),
        Case(headerValues: [#"max-age="120""#], expected: directives(maxAge: 120)),
        Case(headerValues: [#"max-age="6\0""#], expected: directives(maxAge: 60)),
        Case(
            headerValues: ["public, s-maxage=30, max-age=60"],
            expected: directives(maxAge: 60, sharedMaxAge: 30, isPublic: true)),
        Case(headerValues: ["max-age=abc"], expected: directives()),
        Case(headerValues: ["max-age=-5"], expected: directives()),
        Case(headerValues: ["max-age=1.5"], expected: directives()),
        Case(headerValues: ["max-age=, max-age"], expected: directives()),
        Case(headerValues: [#"max-age="unterminated"#], expected: directives()),
        Case(headerValues: ["max-age=99999999999999999999999"], expected: directives(maxAge: 2_147_483_648)),
        Case(headerValues: ["max-age=60", "max-age=60"], expected: directives(maxAge: 60)),
        Case(headerValues: ["max-age=60, max-age=30"], expected: directives(maxAge: 0)),
        Case(headerValues: ["s-maxage=10", "s-maxage=20, s-maxage=10"], expected: directives(sharedMaxAge: 0)),
        Case(headerValues: ["max-age=abc, max-age=60"], expected: directives(maxAge: 60)),
        Case(headerValues: ["max-age=10", "no-store"], expected: directives(maxAge: 10, noStore: true)),
        Case(
            headerValues: ["Private, NO-CACHE, No-Store"],
            expected: directives(noStore: true, isPrivate: true, noCache: true)),
        Case(
            headerValues: [#"private="Set-Cookie, X-Foo", max-age=5"#], expected: directives(maxAge: 5, isPrivate: true)
        ),
        Case(headerValues: [#"no-cache="Set-Cookie""#], expected: directives(noCache: true)),
        Case(
            headerValues: [#"community="UCI", must-revalidate, stale-while-revalidate=10, immutable"#],
            expected: directives()),
        Case(headerValues: [",,, ,max-age=7,,"], expected: directives(maxAge: 7)),
        Case(headerValues: ["=60, public"], expected: directives(isPublic: true)),
        Case(headerValues: ["max-age=60 junk, public"], expected: directives(isPublic: true)),
        Case(headerValues: [#"foo bar="x, max-age=5, y", no-store"#], expected: directives(noStore: true)),
        Case(headerValues: ["max-age=60;public"], expected: directives()),
        Case(headerValues: ["nö-store, max-age=3"], expected: directives(maxAge: 3)),
    ]

    @Test(arguments: cases)
    func parsesDirectives(_ testCase: Case) {
        #expect(CacheControl(headerValues: testCase.headerValues) == testCase.expected)
    }
}
