// `tracing:` (docs/TRACING.md): W3C trace context is always passed on to the origin; spans are
// exported over OTLP/HTTP when an endpoint is set, for a share of the traces Breakwater starts.

extension Configuration {
    /// Span export.
    public struct Tracing: Sendable, Equatable {
        /// The OTLP/HTTP traces endpoint (`http://127.0.0.1:4318/v1/traces`); nil: nothing is
        /// exported and no request does any tracing work.
        public var otlpEndpoint: OriginURL?
        /// The share of the traces Breakwater starts that are recorded and exported, 0...1; a
        /// client's trace is recorded when its `traceparent` says sampled.
        public var sampleRatio = 0.01
        public init() {}
    }
}
