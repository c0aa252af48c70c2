// Spans as an OTLP/HTTP JSON export (docs/TRACING.md, "The wire format"): the protobuf JSON
// mapping with OTLP's hex ids, integer enums and decimal-string times; read back here with the
// project's own JSON parser (the live test decodes it with opentelemetry-proto).

import BreakwaterCore
import Testing

struct OTLPJSONTests {
    static let context = SpanContext(
        traceID: TraceID(hex: "0af7651916cd43dd8448eb211c80319c")!, spanID: SpanID(hex: "00f067aa0ba902b7")!, flags: 1,
        state: "congo=t61rcWkgMzE")

    static func member(_ value: JSONValue?, _ key: String) -> JSONValue? {
        guard case .object(let members)? = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    static func first(_ value: JSONValue?) -> JSONValue? {
        guard case .array(let items)? = value else { return nil }
        return items.first
    }

    static func items(_ value: JSONValue?) -> [JSONValue]? {
        if case .array(let items)? = value { return items }
        return nil
    }

    static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value { return text }
        return nil
    }

    @Test func anExportRequestHoldsTheResourceTheScopeAndEachSpan() throws {
        let spans = [
            Span(
                name: "GET /graphql", kind: .server, context: Self.context, parent: SpanID(hex: "b7ad6b7169203331"),
                start: 1_795_921_435_120_837_849, end: 1_795_921_435_141_079_180,
                attributes: [
                    SpanAttribute("http.response.status_code", 200), SpanAttribute("breakwater.cache", "HIT"),
                    SpanAttribute("breakwater.lease.acquired", true), SpanAttribute("quote", "a \"b\"\n"), SpanAttribute("negative", -42),
                ], error: "answered 502"),
            Span(name: "root", kind: .internal, context: Self.context.child(SpanID(2)), parent: nil, start: 5, end: 6),
        ]
        let json = try JSONParser.parse(OTLPJSON.exportRequest(spans, version: "9.9.9"))
        let resourceSpans = Self.first(Self.member(json, "resourceSpans"))
        let resource = Self.member(resourceSpans, "resource")
        let serviceName = Self.first(Self.member(resource, "attributes"))
        #expect(Self.string(Self.member(serviceName, "key")) == "service.name")
        #expect(Self.string(Self.member(Self.member(serviceName, "value"), "stringValue")) == "breakwater")
        let scopeSpans = Self.first(Self.member(resourceSpans, "scopeSpans"))
        #expect(Self.string(Self.member(Self.member(scopeSpans, "scope"), "version")) == "9.9.9")
        let encoded = try #require(Self.items(Self.member(scopeSpans, "spans")))
        try #require(encoded.count == 2)
        let span = encoded[0]
        #expect(Self.string(Self.member(span, "traceId")) == "0af7651916cd43dd8448eb211c80319c")
        #expect(Self.string(Self.member(span, "spanId")) == "00f067aa0ba902b7")
        #expect(Self.string(Self.member(span, "parentSpanId")) == "b7ad6b7169203331")
        #expect(Self.string(Self.member(span, "traceState")) == "congo=t61rcWkgMzE")
        #expect(Self.member(span, "kind") == .number("2"))
        #expect(Self.string(Self.member(span, "startTimeUnixNano")) == "1795921435120837849")
        #expect(Self.string(Self.member(span, "endTimeUnixNano")) == "1795921435141079180")
        let attributes = try #require(Self.items(Self.member(span, "attributes")))
        try #require(attributes.count == 5)
        #expect(Self.string(Self.member(Self.member(attributes[0], "value"), "intValue")) == "200")
        #expect(Self.member(Self.member(attributes[2], "value"), "boolValue") == .bool(true))
        #expect(Self.string(Self.member(Self.member(attributes[3], "value"), "stringValue")) == "a \"b\"\n")
        #expect(Self.string(Self.member(Self.member(attributes[4], "value"), "intValue")) == "-42")
        #expect(Self.member(Self.member(span, "status"), "code") == .number("2"))
        #expect(Self.member(encoded[1], "parentSpanId") == nil, "a root span has none")
        #expect(Self.member(encoded[1], "status") == nil, "unset status is left out")
    }
}
