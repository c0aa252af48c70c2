// Where new trace and span ids come from: random in the process, a fixed sequence in tests.

import Synchronization

/// Makes ids for new traces and spans; callable from any thread.
package protocol TraceIDSource: Sendable {
    func nextTraceID() -> TraceID
    func nextSpanID() -> SpanID
}

/// Ids from SplitMix64 (Steele, Lea and Flood 2014) over one atomic counter seeded from the
/// system's random source once: an id costs an atomic add and a few multiplications, not a
/// `getrandom` call. Ids are unique and evenly spread (what W3C Trace Context asks of them,
/// section 3.2.2.3, and what the ratio sampler relies on), not secrets.
package final class RandomTraceIDs: TraceIDSource {
    private let state: Atomic<UInt64>

    package init(seed: UInt64 = UInt64.random(in: .min ... .max)) {
        state = Atomic(seed)
    }

    /// The process's source.
    package static let shared = RandomTraceIDs()

    package func nextTraceID() -> TraceID {
        TraceID(high: next(), low: next())
    }

    package func nextSpanID() -> SpanID {
        SpanID(next())
    }

    /// A value that is never 0 (an all-zero id is no id).
    private func next() -> UInt64 {
        while true {
            var z = state.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            if z != 0 { return z }
        }
    }
}
