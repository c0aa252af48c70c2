// An access-log entry with every kind of field, for the log tests (the line's text and JSON in
// the core, the packed record in the server).

import BreakwaterCore

package enum LogFixture {
    /// A hashed-GET hit with a user agent longer than a line keeps.
    package static let accessEntry = AccessLogEntry(
        time: LogTimestamp(millisecondsSinceEpoch: 0), client: "10.0.0.1", method: "GET", status: 200, cache: .hit,
        operation: "GetLaunches", hash: SHA256Digest(hex: String(repeating: "ab", count: 32)), duration: .microseconds(412),
        bytes: 1234, requestID: "r-1", userAgent: String(repeating: "u", count: 300), clientName: "ios")
}
