// The `traceparent` header of W3C Trace Context (https://www.w3.org/TR/trace-context/, sections
// 3.2 and 4.3): read in place from the field's bytes, written in version 00. A value that does not
// follow the format is ignored, as the recommendation asks: the request then has no parent.
//
// Written here rather than taken from a library: the format is four fixed-width fields, the
// recommendation's rule for versions above 00 (read the first four fields, ignore what follows a
// dash) needs following, `tracestate` must be passed on as received (not decoded and re-encoded),
// and the miss path reads the field without copying it (docs/TRACING.md, "Why no tracing library").

/// Parsing and formatting of `traceparent`.
package enum TraceParent {
    /// The `sampled` bit of `trace-flags`.
    package static let sampledFlag: UInt8 = 0x01
    /// The length of a version-00 value: `vv-<32>-<16>-ff`.
    package static let length = 55

    /// The trace id, parent id and flags of a `traceparent` value; nil when it is not one: a
    /// version `ff` or not two lower-case hex digits, a wrong length, a missing dash, hex digits
    /// that are not lower-case, an all-zero trace id or parent id. A version above 00 is read by
    /// its first four fields when what follows them is nothing or a dash (section 4.3). Spaces and
    /// tabs around the value are ignored.
    package static func parse(_ value: String) -> SpanContext? {
        var text = value
        return text.withUTF8 { parse($0) }
    }

    /// `parse(_:)` over the value's bytes.
    package static func parse(_ raw: UnsafeBufferPointer<UInt8>) -> SpanContext? {
        var start = 0
        var end = raw.count
        while start < end, raw[start] == UInt8(ascii: " ") || raw[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, raw[end - 1] == UInt8(ascii: " ") || raw[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        let bytes = UnsafeBufferPointer(rebasing: raw[start..<end])
        guard bytes.count >= length, let version = TraceHex.value(bytes, from: 0, count: 2), version != 0xFF else {
            return nil
        }
        // Version 00 is exactly 55 bytes; a later version may add fields after a dash.
        if version == 0 ? bytes.count != length : bytes.count > length && bytes[length] != UInt8(ascii: "-") {
            return nil
        }
        guard bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-"),
            let high = TraceHex.value(bytes, from: 3, count: 16), let low = TraceHex.value(bytes, from: 19, count: 16),
            let parent = TraceHex.value(bytes, from: 36, count: 16), let flags = TraceHex.value(bytes, from: 53, count: 2)
        else { return nil }
        let traceID = TraceID(high: high, low: low)
        guard traceID.isValid, parent != 0 else { return nil }
        return SpanContext(traceID: traceID, spanID: SpanID(parent), flags: UInt8(flags))
    }

    /// The version-00 value naming `context`'s span, as bytes.
    package static func bytes(of context: SpanContext) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        bytes.append(contentsOf: "00-".utf8)
        context.traceID.appendHex(to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        context.spanID.appendHex(to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        TraceHex.append(UInt64(context.flags), digits: 2, to: &bytes)
        return bytes
    }

    /// Writes the version-00 value naming `context`'s span at `start` (`length` bytes).
    package static func write(_ context: SpanContext, at start: UnsafeMutablePointer<UInt8>) {
        start[0] = UInt8(ascii: "0")
        start[1] = UInt8(ascii: "0")
        start[2] = UInt8(ascii: "-")
        TraceHex.write(context.traceID.high, digits: 16, at: start + 3)
        TraceHex.write(context.traceID.low, digits: 16, at: start + 19)
        start[35] = UInt8(ascii: "-")
        TraceHex.write(context.spanID.value, digits: 16, at: start + 36)
        start[52] = UInt8(ascii: "-")
        TraceHex.write(UInt64(context.flags), digits: 2, at: start + 53)
    }
}
