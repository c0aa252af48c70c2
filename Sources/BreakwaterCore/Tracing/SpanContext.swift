// What crosses a process boundary of a trace (W3C Trace Context): the trace, the span a child
// names as its parent, the flags, and the vendors' `tracestate` as it was received.

/// One span's place in a trace, as `traceparent` and `tracestate` carry it.
package struct SpanContext: Sendable, Hashable {
    package var traceID: TraceID
    package var spanID: SpanID
    /// `trace-flags`: bit 0 is `sampled`; the other bits are passed on as they came.
    package var flags: UInt8
    /// `tracestate` as received (several fields joined with ","), passed on unchanged; nil when none.
    package var state: String?

    package init(traceID: TraceID, spanID: SpanID, flags: UInt8, state: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
        self.state = state
    }

    /// The `sampled` flag: the caller may be recording this trace.
    package var isSampled: Bool { flags & TraceParent.sampledFlag != 0 }

    /// The same trace, flags and state, naming `spanID` (a child's context).
    package func child(_ spanID: SpanID) -> SpanContext {
        SpanContext(traceID: traceID, spanID: spanID, flags: flags, state: state)
    }

    /// The `traceparent` value naming this span: `00-<trace-id>-<span-id>-<flags>`.
    package var traceparent: String { String(decoding: TraceParent.bytes(of: self), as: UTF8.self) }
}
