// Which traces Breakwater records and exports (`tracing.sample_ratio`, docs/TRACING.md): a
// parent's `sampled` flag decides for the traces a client started, the ratio for those Breakwater
// starts, by the trace id, so that every proxy of a fleet decides alike for one trace.

/// The sampling decision for a request's trace.
package struct TraceSampler: Sendable, Equatable {
    /// The share of new traces recorded, 0...1.
    package let ratio: Double
    /// New traces whose id's low 63 bits fall below this are recorded.
    private let bound: UInt64

    package init(ratio: Double) {
        self.ratio = min(1, max(0, ratio))
        bound = self.ratio >= 1 ? .max : UInt64(self.ratio * 0x1p63)
    }

    /// Whether a trace continued from `parent` is recorded: as the parent says (a sampled parent
    /// is always followed, an unsampled one never).
    package func isSampled(parent: SpanContext) -> Bool {
        parent.isSampled
    }

    /// Whether a trace Breakwater starts with `traceID` is recorded.
    package func isSampled(newTrace traceID: TraceID) -> Bool {
        ratio >= 1 || traceID.low & 0x7FFF_FFFF_FFFF_FFFF < bound
    }
}
