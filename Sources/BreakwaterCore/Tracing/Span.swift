// One finished span as Breakwater exports it (OTLP's `Span`, docs/TRACING.md "What is exported"):
// built when its work ends, then handed to the export queue.

/// A finished span.
package struct Span: Sendable, Equatable {
    /// OTLP's `Span.SpanKind`, by its number.
    package enum Kind: Int, Sendable {
        case `internal` = 1
        case server = 2
        case client = 3
    }

    package var name: String
    package var kind: Kind
    package var traceID: TraceID
    package var spanID: SpanID
    /// nil for a trace's root span.
    package var parentSpanID: SpanID?
    /// The trace's `tracestate`, as the request carried it.
    package var traceState: String?
    /// Unix time in nanoseconds.
    package var start: UInt64
    package var end: UInt64
    package var attributes: [SpanAttribute]
    /// The span failed (OTLP status `ERROR`), with why.
    package var error: String?

    package init(
        name: String, kind: Kind, context: SpanContext, parent: SpanID?, start: UInt64, end: UInt64,
        attributes: [SpanAttribute] = [], error: String? = nil
    ) {
        self.name = name
        self.kind = kind
        traceID = context.traceID
        spanID = context.spanID
        parentSpanID = parent
        traceState = context.state
        self.start = start
        self.end = max(start, end)
        self.attributes = attributes
        self.error = error
    }

    /// The attribute's value, for tests and the exporter.
    package subscript(key: String) -> SpanAttribute.Value? {
        attributes.first { $0.key == key }?.value
    }
}
