// Lower-case hexadecimal as W3C Trace Context writes its ids and flags (section 3.2.2): read
// only in that form, written only in it.

/// Reading and writing the hex digits of trace ids, span ids and flags.
enum TraceHex {
    /// The value of `count` lower-case hex digits of `bytes` from `start`; nil when any is not one
    /// (upper-case digits included: the format allows only lower case).
    static func value(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, count: Int) -> UInt64? {
        var value: UInt64 = 0
        for index in start..<(start + count) {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// The text `append` writes, `count` hex digits long (an id's `hex`).
    static func text(digits count: Int, _ append: (inout [UInt8]) -> Void) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        append(&bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` as `count` lower-case hex digits (the low `4 * count` bits, leading zeros
    /// kept), written on the stack and appended in one copy.
    static func append(_ value: UInt64, digits count: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { buffer in
            write(value, digits: count, at: buffer.baseAddress!)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// Writes `value` as `count` lower-case hex digits at `start`.
    static func write(_ value: UInt64, digits count: Int, at start: UnsafeMutablePointer<UInt8>) {
        for position in 0..<count {
            start[position] = digit(UInt8(truncatingIfNeeded: value >> UInt64(4 * (count - 1 - position))) & 0xF)
        }
    }

    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }
}
