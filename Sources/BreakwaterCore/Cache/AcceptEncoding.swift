// Whether a client takes gzip, read from its Accept-Encoding values (RFC 9110 section 12.5.3)
// byte by byte: codings separated by commas, each with `;`-parameters of which `q` is the weight.
// Splitting into substrings, lower-casing and parsing weights as Doubles cost about 9,000
// instructions on every answer from the cache to a client that sends the header (every browser).

/// What a request's Accept-Encoding fields say of gzip, read one field value at a time (as a
/// walk over the request's fields meets them: no array of values is built).
package struct AcceptEncoding {
    private var verdict = Verdict.unnamed

    package init() {}

    /// Reads one Accept-Encoding field value.
    package mutating func read(_ value: String) {
        guard verdict != .refused else { return }
        switch value.withUTF8Bytes(Self.fieldVerdict) {
        case .refused: verdict = .refused
        case .accepted: verdict = .accepted
        case .unnamed: break
        }
    }

    /// Whether the values read list `gzip` (or `x-gzip`, or `*`) with a non-zero weight; an
    /// explicit `gzip;q=0` (or `x-gzip;q=0`) in any of them refuses gzip even when `*` is accepted.
    package var acceptsGzip: Bool { verdict == .accepted }

    /// The verdict of `values` read in order.
    package static func acceptsGzip(_ values: [String]) -> Bool {
        var encoding = AcceptEncoding()
        for value in values { encoding.read(value) }
        return encoding.acceptsGzip
    }

    private enum Verdict { case accepted, refused, unnamed }

    /// What one field value says of gzip.
    private static func fieldVerdict(_ bytes: UnsafeBufferPointer<UInt8>) -> Verdict {
        var accepted = false
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
            switch coding(bytes, start, end) {
            case .refused: return .refused
            case .accepted: accepted = true
            case .unnamed: break
            }
            start = end + 1
        }
        return accepted ? .accepted : .unnamed
    }

    /// What the coding between `start` and `end` (one list member) says of gzip.
    private static func coding(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Verdict {
        var nameEnd = start
        while nameEnd < end && bytes[nameEnd] != UInt8(ascii: ";") { nameEnd += 1 }
        let (from, to) = trimmed(bytes, start, nameEnd)
        let isWildcard = to - from == 1 && bytes[from] == UInt8(ascii: "*")
        guard isWildcard || isGzip(bytes, from, to) else { return .unnamed }
        // The first `q` parameter is the weight; none is 1.
        var parameter = nameEnd + 1
        while parameter < end {
            var parameterEnd = parameter
            while parameterEnd < end && bytes[parameterEnd] != UInt8(ascii: ";") { parameterEnd += 1 }
            let (from, to) = trimmed(bytes, parameter, parameterEnd)
            if to - from >= 2 && bytes[from] | 0x20 == UInt8(ascii: "q") && bytes[from + 1] == UInt8(ascii: "=") {
                guard isZeroWeight(bytes, from + 2, to) else { return .accepted }
                return isWildcard ? .unnamed : .refused
            }
            parameter = parameterEnd + 1
        }
        return .accepted
    }

    /// `gzip` or `x-gzip`, in any case.
    private static func isGzip(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var from = from
        if to - from == 6 && bytes[from] | 0x20 == UInt8(ascii: "x") && bytes[from + 1] == UInt8(ascii: "-") { from += 2 }
        guard to - from == 4 else { return false }
        return bytes[from] | 0x20 == UInt8(ascii: "g") && bytes[from + 1] | 0x20 == UInt8(ascii: "z")
            && bytes[from + 2] | 0x20 == UInt8(ascii: "i") && bytes[from + 3] | 0x20 == UInt8(ascii: "p")
    }

    /// Whether the weight is a number equal to zero (`0`, `0.0`, `0.000`); a weight that is no
    /// number at all is ignored, as if absent.
    private static func isZeroWeight(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        var index = from
        var digits = 0, nonZero = false, sawPoint = false
        while index < to {
            let byte = bytes[index]
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
                if byte != UInt8(ascii: "0") { nonZero = true }
            } else if byte == UInt8(ascii: ".") && !sawPoint {
                sawPoint = true
            } else {
                return false
            }
            index += 1
        }
        return digits > 0 && !nonZero
    }

    /// `from..<to` without the optional white space around it.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> (Int, Int) {
        var from = from, to = to
        while from < to && (bytes[from] == UInt8(ascii: " ") || bytes[from] == UInt8(ascii: "\t")) { from += 1 }
        while to > from && (bytes[to - 1] == UInt8(ascii: " ") || bytes[to - 1] == UInt8(ascii: "\t")) { to -= 1 }
        return (from, to)
    }
}
