// Spans as an OTLP/HTTP JSON request body (https://opentelemetry.io/docs/specs/otlp/, "JSON
// Protobuf Encoding"): an `ExportTraceServiceRequest` in the protobuf JSON mapping, with the
// OTLP rules on top of it: trace and span ids as hex strings (not base64), enums as integers,
// 64-bit integers and times as decimal strings. Written in one pass into one byte array: the
// literals and numbers are copied as bytes, and a string that needs no escaping is copied whole.

/// Encodes an `ExportTraceServiceRequest`.
package enum OTLPJSON {
    /// One `resourceSpans` with `service.name` and `service.version`, one `scopeSpans` named
    /// `breakwater`, holding `spans`.
    package static func exportRequest(_ spans: [Span], serviceName: String = "breakwater", version: String)
        -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(256 + spans.count * 640)
        literal(#"{"resourceSpans":[{"resource":{"attributes":["#, to: &out)
        appendAttribute(SpanAttribute("service.name", serviceName), to: &out)
        out.append(UInt8(ascii: ","))
        appendAttribute(SpanAttribute("service.version", version), to: &out)
        literal(#"]},"scopeSpans":[{"scope":{"name":"breakwater","version":"#, to: &out)
        quoted(version, to: &out)
        literal(#"},"spans":["#, to: &out)
        for (index, span) in spans.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendSpan(span, to: &out)
        }
        literal("]}]}]}", to: &out)
        return out
    }

    private static func appendSpan(_ span: Span, to out: inout [UInt8]) {
        literal(#"{"traceId":""#, to: &out)
        span.traceID.appendHex(to: &out)
        literal(#"","spanId":""#, to: &out)
        span.spanID.appendHex(to: &out)
        out.append(UInt8(ascii: "\""))
        if let parent = span.parentSpanID {
            literal(#","parentSpanId":""#, to: &out)
            parent.appendHex(to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let state = span.traceState {
            literal(#","traceState":"#, to: &out)
            quoted(state, to: &out)
        }
        literal(#","name":"#, to: &out)
        quoted(span.name, to: &out)
        literal(#","kind":"#, to: &out)
        decimal(UInt64(span.kind.rawValue), to: &out)
        literal(#","startTimeUnixNano":""#, to: &out)
        decimal(span.start, to: &out)
        literal(#"","endTimeUnixNano":""#, to: &out)
        decimal(span.end, to: &out)
        literal(#"","attributes":["#, to: &out)
        for (index, attribute) in span.attributes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendAttribute(attribute, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        if let error = span.error {
            // STATUS_CODE_ERROR
            literal(#","status":{"code":2,"message":"#, to: &out)
            quoted(error, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func appendAttribute(_ attribute: SpanAttribute, to out: inout [UInt8]) {
        literal(#"{"key":"#, to: &out)
        quoted(attribute.key, to: &out)
        literal(#","value":{"#, to: &out)
        switch attribute.value {
        case .string(let text):
            literal(#""stringValue":"#, to: &out)
            quoted(text, to: &out)
        case .int(let number):
            literal(#""intValue":""#, to: &out)
            if number < 0 { out.append(UInt8(ascii: "-")) }
            decimal(UInt64(number.magnitude), to: &out)
            out.append(UInt8(ascii: "\""))
        case .bool(let flag):
            literal(flag ? #""boolValue":true"# : #""boolValue":false"#, to: &out)
        }
        literal("}}", to: &out)
    }

    private static func literal(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal digits, written on the stack and appended in one copy.
    private static func decimal(_ value: UInt64, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var start = 20
            var rest = value
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            } while rest > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// `text` as a JSON string: copied whole when nothing in it needs escaping (names, ids, the
    /// usual values), else through `JSONWriter.quotedString`.
    private static func quoted(_ text: String, to out: inout [UInt8]) {
        var text = text
        let copied: Bool = text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if !copied { JSONWriter.quotedString(text, into: &out) }
    }
}
