// The identity of one trace (W3C Trace Context, section 3.2.2.3): 16 bytes, written as 32
// lower-case hex digits; all zeros is not an id.

/// A trace's 16-byte id, as two 64-bit halves (`high` is the first 8 bytes written).
package struct TraceID: Sendable, Hashable, CustomStringConvertible {
    package var high: UInt64
    package var low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// 32 lower-case hex digits; nil for anything else, all zeros included.
    package init?(hex: String) {
        var text = hex
        let parsed: TraceID? = text.withUTF8 { bytes in
            guard bytes.count == 32, let high = TraceHex.value(bytes, from: 0, count: 16),
                let low = TraceHex.value(bytes, from: 16, count: 16)
            else { return nil }
            return TraceID(high: high, low: low)
        }
        guard let parsed, parsed.isValid else { return nil }
        self = parsed
    }

    /// Whether it may name a trace: not all zeros.
    package var isValid: Bool { high != 0 || low != 0 }

    /// 32 lower-case hex digits.
    package var hex: String { TraceHex.text(digits: 32, appendHex) }

    package func appendHex(to out: inout [UInt8]) {
        TraceHex.append(high, digits: 16, to: &out)
        TraceHex.append(low, digits: 16, to: &out)
    }

    package var description: String { hex }
}
