// An answer's header list for a HEADERS frame: `:status`, then the fields HTTP/1.1 would write in
// the same order (the handler's, `X-Request-Id`, `Date`, a cached answer's ETag and stored
// fields, `Content-Length`), without the fields that belong to one HTTP/1.1 connection (RFC 9113
// 8.2.2). nghttp2 lower-cases the names as it copies them. The pairs and their bytes are written
// once, through a pointer, into memory sized beforehand on the stack: appending each piece to an
// array cost about 200 instructions a piece, and the status and length went through `String`.

import BreakwaterCore
import CNghttp2

/// Writes the name/value pairs of one answer.
enum HTTP2ResponseFields {
    /// Calls `body` with `response`'s pairs as nghttp2 takes them (valid only meanwhile).
    /// `bodiless`: the status carries no body, so no `Content-Length` and no stored fields.
    static func withNameValues<R>(
        of response: HTTPResponse, date: String, bodiless: Bool, _ body: (UnsafeBufferPointer<nghttp2_nv>) -> R
    ) -> R {
        let prebuilt = bodiless ? nil : response.prebuilt
        let lines = response.cacheLines
        let fields = response.listedHeaders.fields
        let requestIDCount = response.stampedIDCount
        // The room: every piece's bytes (status and length at most 20 digits each), and a pair
        // per field; a stored field's line is at least 5 bytes (`a: b\r\n`), so its pairs are
        // at most a fifth of the head it adds.
        var byteBound = 7 + 20 + 4 + date.utf8.count + 14 + 20 + 12 + (requestIDCount ?? 0)
        var pairBound = fields.count + 5
        if let lines {
            byteBound += lines.byteBound
            pairBound += 5
        }
        for field in fields { byteBound += field.name.utf8.count + field.value.utf8.count }
        if let prebuilt {
            byteBound += prebuilt.headBound
            pairBound += prebuilt.headBound / 5 + 1
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: byteBound) { bytes in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: pairBound) { pairs in
                var list = PairWriter(bytes: bytes.baseAddress!, pairs: pairs.baseAddress!)
                list.add(":status", decimal: response.status)
                if let lines {
                    list.add("x-cache", lines.cache.headerLiteral)
                    if let age = lines.age { list.add("age", decimal: Int(age)) }
                    list.add("cache-control", lines.cacheControl.bytes)
                    if let vary = lines.vary { list.add("vary", vary.bytes) }
                }
                for field in fields where !isConnectionSpecific(field.name) { list.add(field.name, field.value) }
                if let lines { list.add("content-type", lines.contentType.bytes) }
                if requestIDCount != nil { list.add("x-request-id", stampedIDOf: response) }
                list.add("date", date)
                prebuilt?.forEachField { name, value in list.add(name, value) }
                if !bodiless { list.add("content-length", decimal: response.bodyCount) }
                return body(UnsafeBufferPointer(start: pairs.baseAddress, count: list.count))
            }
        }
    }

    /// Fields HTTP/2 forbids or frames itself: the HTTP/1.1 connection's (RFC 9113 8.2.2),
    /// `Content-Length` and `Date` (written here), in any case; told apart by length and first
    /// letter before any comparison (the fields of an answer from the cache match none).
    static func isConnectionSpecific(_ name: String) -> Bool {
        guard let first = name.utf8.first.map({ $0 | 0x20 }) else { return false }
        switch (name.utf8.count, first) {
        case (2, UInt8(ascii: "t")): return name.equalsIgnoringASCIICase("TE")
        case (4, UInt8(ascii: "d")): return name.equalsIgnoringASCIICase("Date")
        case (7, UInt8(ascii: "u")): return name.equalsIgnoringASCIICase("Upgrade")
        case (7, UInt8(ascii: "t")): return name.equalsIgnoringASCIICase("Trailer")
        case (10, UInt8(ascii: "c")): return name.equalsIgnoringASCIICase("Connection")
        case (10, UInt8(ascii: "k")): return name.equalsIgnoringASCIICase("Keep-Alive")
        case (14, UInt8(ascii: "c")): return name.equalsIgnoringASCIICase("Content-Length")
        case (16, UInt8(ascii: "p")): return name.equalsIgnoringASCIICase("Proxy-Connection")
        case (17, UInt8(ascii: "t")): return name.equalsIgnoringASCIICase("Transfer-Encoding")
        case (18, UInt8(ascii: "p")): return name.equalsIgnoringASCIICase("Proxy-Authenticate")
        case (19, UInt8(ascii: "p")): return name.equalsIgnoringASCIICase("Proxy-Authorization")
        default: return false
        }
    }
}

/// Writes pairs into reserved memory: each piece's bytes, then the pair pointing at them.
private struct PairWriter {
    private var output: HeadOutput
    private let pairs: UnsafeMutablePointer<nghttp2_nv>
    private(set) var count = 0

    init(bytes: UnsafeMutablePointer<UInt8>, pairs: UnsafeMutablePointer<nghttp2_nv>) {
        output = HeadOutput(bytes)
        self.pairs = pairs
    }

    mutating func add(_ name: StaticString, decimal value: Int) {
        add(unique: false) { $0.put(name) } value: { $0.putDecimal(value) }
    }

    /// `unique`: the value is one request's own (never added to HPACK's table, where it would only
    /// push out the fields every answer repeats).
    mutating func add(_ name: StaticString, _ value: String, unique: Bool = false) {
        add(unique: unique) { $0.put(name) } value: { $0.put(value) }
    }

    /// A request's id: one request's own, so never indexed (as `unique` above).
    mutating func add(_ name: StaticString, stampedIDOf response: HTTPResponse) {
        add(unique: true) { $0.put(name) } value: { $0.put(stampedIDOf: response) }
    }

    mutating func add(_ name: String, _ value: String) {
        add(unique: false) { $0.put(name) } value: { $0.put(value) }
    }

    mutating func add(_ name: StaticString, _ value: StaticString) {
        add(unique: false) { $0.put(name) } value: { $0.put(value) }
    }

    mutating func add(_ name: StaticString, _ value: UnsafeBufferPointer<UInt8>) {
        add(unique: false) { $0.put(name) } value: { $0.put(value) }
    }

    mutating func add(_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) {
        add(unique: false) { $0.put(name) } value: { $0.put(value) }
    }

    /// One pair: the name's bytes, then the value's, then the pair pointing at both. The typed
    /// overloads above call it with their own writers (one generic writer cost more per answer).
    @inline(__always)
    private mutating func add(
        unique: Bool, name writeName: (inout HeadOutput) -> Void, value writeValue: (inout HeadOutput) -> Void
    ) {
        let nameStart = output.position
        writeName(&output)
        let valueStart = output.position
        writeValue(&output)
        pair(nameStart, valueStart, unique: unique)
    }

    private mutating func pair(
        _ nameStart: UnsafeMutablePointer<UInt8>, _ valueStart: UnsafeMutablePointer<UInt8>, unique: Bool
    ) {
        pairs[count] = nghttp2_nv(
            name: nameStart, value: valueStart, namelen: valueStart - nameStart,
            valuelen: output.position - valueStart,
            flags: UInt8(unique ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
        count += 1
    }
}
