// Decoding `application/x-www-form-urlencoded` query strings as browsers' URLSearchParams do:
// pairs split on "&", "+" is a space, percent escapes are UTF-8 bytes.

/// The decoded parameters of a request-target's query string, in order.
package struct QueryString: Sendable {
    package let pairs: [(name: String, value: String)]

    package init(_ query: Substring?) {
        guard let query, !query.isEmpty else {
            pairs = []
            return
        }
        pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { part in
            if let equals = part.firstIndex(of: "=") {
                return (Self.decode(part[..<equals]), Self.decode(part[part.index(after: equals)...]))
            }
            return (Self.decode(part), "")
        }
    }

    /// Every value given for `name`.
    package func values(of name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Percent-decodes `text`, "+" as space; malformed escapes stay as written (as
    /// URLSearchParams does), and invalid UTF-8 becomes U+FFFD.
    package static func decode(_ text: Substring) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return String(text) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"),
                let first = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex), first != utf8.endIndex,
                let second = utf8.index(first, offsetBy: 1, limitedBy: utf8.endIndex), second != utf8.endIndex,
                let high = utf8[first].hexDigitValue, let low = utf8[second].hexDigitValue
            {
                bytes.append(high << 4 | low)
                index = second
            } else {
                bytes.append(byte)
            }
            index = utf8.index(after: index)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Percent-encodes `text` for a query-string value: all but RFC 3986's unreserved characters.
    package static func encode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension UInt8 {
    /// The value of this ASCII hex digit (either case), or nil for any other byte.
    package var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
