// An answer's header list for a HEADERS frame: `:status`, then the fields HTTP/1.1 would write in
// the same order (the handler's, `X-Request-Id`, `Date`, a cached answer's ETag and stored
// fields, `Content-Length`), without the fields that belong to one HTTP/1.1 connection (RFC 9113
// 8.2.2). nghttp2 lower-cases the names as it copies them.

import BreakwaterCore
import CNghttp2

/// The name/value pairs of one answer, in one block of bytes.
struct HTTP2ResponseFields {
    private var bytes: [UInt8] = []
    /// Offsets into `bytes`: name start, name count, value start, value count; and whether the
    /// value is one request's own (never added to HPACK's table, where it would only push out
    /// the fields every answer repeats).
    private var spans: [(Int, Int, Int, Int, Bool)] = []

    init(_ response: HTTPResponse, date: String, bodiless: Bool) {
        bytes.reserveCapacity(256)
        spans.reserveCapacity(response.headers.fields.count + 6)
        add(":status", String(response.status))
        for field in response.headers.fields where !Self.isConnectionSpecific(field.name) {
            add(field.name, field.value)
        }
        if let requestID = response.requestID { add("x-request-id", requestID, unique: true) }
        add("date", date)
        if let prebuilt = response.prebuilt, !bodiless {
            if let etag = prebuilt.etag { add("etag", etag) }
            for field in prebuilt.storedFields { add(field.name, field.value) }
        }
        if !bodiless { add("content-length", String(response.bodyCount)) }
    }

    private mutating func add(_ name: String, _ value: String, unique: Bool = false) {
        let nameStart = bytes.count
        bytes.appendText(name)
        let valueStart = bytes.count
        bytes.appendText(value)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart, unique))
    }

    /// Calls `body` with the pairs as nghttp2 takes them (valid only meanwhile).
    mutating func withNameValues<R>(_ body: (UnsafeBufferPointer<nghttp2_nv>) -> R) -> R {
        let spans = self.spans
        return bytes.withUnsafeMutableBufferPointer { storage in
            let base = storage.baseAddress!
            return withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: spans.count) { pairs in
                for (index, span) in spans.enumerated() {
                    pairs[index] = nghttp2_nv(
                        name: base + span.0, value: base + span.2, namelen: span.1, valuelen: span.3,
                        flags: UInt8(span.4 ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return body(UnsafeBufferPointer(pairs))
            }
        }
    }

    /// Fields HTTP/2 forbids or frames itself: the HTTP/1.1 connection's (RFC 9113 8.2.2),
    /// `Content-Length` and `Date` (written here), in any case; told apart by length first.
    static func isConnectionSpecific(_ name: String) -> Bool {
        switch name.utf8.count {
        case 2: name.equalsIgnoringASCIICase("TE")
        case 4: name.equalsIgnoringASCIICase("Date")
        case 7: name.equalsIgnoringASCIICase("Upgrade") || name.equalsIgnoringASCIICase("Trailer")
        case 10: name.equalsIgnoringASCIICase("Connection") || name.equalsIgnoringASCIICase("Keep-Alive")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 16: name.equalsIgnoringASCIICase("Proxy-Connection")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        case 18: name.equalsIgnoringASCIICase("Proxy-Authenticate")
        case 19: name.equalsIgnoringASCIICase("Proxy-Authorization")
        default: false
        }
    }
}
