// Serialises GraphQL `Map` values to JSON bytes, keeping the map's own key order.

import GraphQL

/// A small deterministic JSON writer: the same `Map` always gives the same bytes.
///
/// Foundation's encoders would reorder keys (hash order) or need `Encodable` detours;
/// the demo promises byte-identical answers for identical requests, so it writes JSON itself.
enum JSONWriter {
    static func bytes(_ value: Map) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out)
        return out
    }

    static func write(_ value: Map, into out: inout [UInt8]) {
        switch value {
        case .undefined, .null:
            out.append(contentsOf: "null".utf8)
        case .bool(let bool):
            out.append(contentsOf: (bool ? "true" : "false").utf8)
        case .number(let number):
            writeNumber(number, into: &out)
        case .string(let string):
            writeString(string, into: &out)
        case .array(let array):
            out.append(UInt8(ascii: "["))
            for (index, element) in array.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let dictionary):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, element) in dictionary where !element.isUndefined {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Whole numbers print without a fraction ("3", not "3.0"), as JavaScript servers print them.
    private static func writeNumber(_ number: Number, into out: inout [UInt8]) {
        let double = number.doubleValue
        if number.storageType == .bool {
            out.append(contentsOf: (number.boolValue ? "true" : "false").utf8)
        } else if number.storageType == .int {
            out.append(contentsOf: String(number.intValue).utf8)
        } else if !double.isFinite {
            out.append(contentsOf: "null".utf8)
        } else if double == double.rounded(), abs(double) < 9.007_199_254_740_992e15 {
            out.append(contentsOf: String(Int64(double)).utf8)
        } else {
            out.append(contentsOf: String(double).utf8)
        }
    }

    static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): out.append(contentsOf: #"\\"#.utf8)
            case 0x0A: out.append(contentsOf: #"\n"#.utf8)
            case 0x0D: out.append(contentsOf: #"\r"#.utf8)
            case 0x09: out.append(contentsOf: #"\t"#.utf8)
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                out.append(contentsOf: "\\u00\(hex.count == 1 ? "0" : "")\(hex)".utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
