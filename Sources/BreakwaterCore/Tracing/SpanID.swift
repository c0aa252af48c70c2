// The identity of one span within a trace (W3C Trace Context, section 3.2.2.4, `parent-id`): 8
// bytes, written as 16 lower-case hex digits; all zeros is not an id.

/// A span's 8-byte id.
package struct SpanID: Sendable, Hashable, CustomStringConvertible {
    package var value: UInt64

    package init(_ value: UInt64) {
        self.value = value
    }

    /// 16 lower-case hex digits; nil for anything else, all zeros included.
    package init?(hex: String) {
        var text = hex
        let parsed: UInt64? = text.withUTF8 { bytes in
            bytes.count == 16 ? TraceHex.value(bytes, from: 0, count: 16) : nil
        }
        guard let parsed, parsed != 0 else { return nil }
        value = parsed
    }

    /// Whether it may name a span: not all zeros.
    package var isValid: Bool { value != 0 }

    /// 16 lower-case hex digits.
    package var hex: String { TraceHex.text(digits: 16, appendHex) }

    package func appendHex(to out: inout [UInt8]) {
        TraceHex.append(value, digits: 16, to: &out)
    }

    package var description: String { hex }
}
