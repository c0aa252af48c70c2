// Spans as an OTLP/HTTP JSON request body (https://opentelemetry.io/docs/specs/otlp/, "JSON
// Protobuf Encoding"): an `ExportTraceServiceRequest` in the protobuf JSON mapping, with the
// OTLP rules on top of it: trace and span ids as hex strings (not base64), enums as integers,
// 64-bit integers and times as decimal strings.

/// Encodes an `ExportTraceServiceRequest`.
package enum OTLPJSON {
    /// One `resourceSpans` with `service.name` and `service.version`, one `scopeSpans` named
    /// `breakwater`, holding `spans`.
    package static func exportRequest(_ spans: [Span], serviceName: String = "breakwater", version: String)
        -> [UInt8]
    {
        var out: [UInt8] = []
        out.reserveCapacity(256 + spans.count * 512)
        out.append(contentsOf: #"{"resourceSpans":[{"resource":{"attributes":["#.utf8)
        appendAttribute(SpanAttribute("service.name", serviceName), to: &out)
        out.append(UInt8(ascii: ","))
        appendAttribute(SpanAttribute("service.version", version), to: &out)
        out.append(contentsOf: #"]},"scopeSpans":[{"scope":{"name":"breakwater","version":"#.utf8)
        JSONWriter.quotedString(version, into: &out)
        out.append(contentsOf: #"},"spans":["#.utf8)
        for (index, span) in spans.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendSpan(span, to: &out)
        }
        out.append(contentsOf: "]}]}]}".utf8)
        return out
    }

    private static func appendSpan(_ span: Span, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"traceId":""#.utf8)
        span.traceID.appendHex(to: &out)
        out.append(contentsOf: #"","spanId":""#.utf8)
        span.spanID.appendHex(to: &out)
        out.append(UInt8(ascii: "\""))
        if let parent = span.parentSpanID {
            out.append(contentsOf: #","parentSpanId":""#.utf8)
            parent.appendHex(to: &out)
            out.append(UInt8(ascii: "\""))
        }
        if let state = span.traceState {
            out.append(contentsOf: #","traceState":"#.utf8)
            JSONWriter.quotedString(state, into: &out)
        }
        out.append(contentsOf: #","name":"#.utf8)
        JSONWriter.quotedString(span.name, into: &out)
        out.append(contentsOf: #","kind":\#(span.kind.rawValue),"startTimeUnixNano":"\#(span.start)","#.utf8)
        out.append(contentsOf: #""endTimeUnixNano":"\#(span.end)","attributes":["#.utf8)
        for (index, attribute) in span.attributes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendAttribute(attribute, to: &out)
        }
        out.append(UInt8(ascii: "]"))
        if let error = span.error {
            // STATUS_CODE_ERROR
            out.append(contentsOf: #","status":{"code":2,"message":"#.utf8)
            JSONWriter.quotedString(error, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }

    private static func appendAttribute(_ attribute: SpanAttribute, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"key":"#.utf8)
        JSONWriter.quotedString(attribute.key, into: &out)
        out.append(contentsOf: #","value":{"#.utf8)
        switch attribute.value {
        case .string(let text):
            out.append(contentsOf: #""stringValue":"#.utf8)
            JSONWriter.quotedString(text, into: &out)
        case .int(let number):
            out.append(contentsOf: #""intValue":"\#(number)""#.utf8)
        case .bool(let flag):
            out.append(contentsOf: #""boolValue":\#(flag)"#.utf8)
        }
        out.append(contentsOf: "}}".utf8)
    }
}
