// The Date header's format (RFC 9110 section 5.6.7, IMF-fixdate).

@testable import BreakwaterServer
import Testing

struct HTTPDateTests {
    @Test(arguments: [
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),  // RFC 9110's own example
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (1_795_374_421, "Sun, 22 Nov 2026 19:07:01 GMT"),  // from date -u -d @1795374421
    ])
    func formatsIMFFixdate(seconds: Int, expected: String) {
        #expect(HTTPDate.format(seconds) == expected)
    }
}
