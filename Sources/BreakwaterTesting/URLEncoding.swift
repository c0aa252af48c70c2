// Percent-encoding for query strings, such as a GraphQL GET request's `query` and `extensions`.

/// Builds query strings with every byte outside the RFC 3986 unreserved set percent-encoded.
public enum URLEncoding {
    /// Percent-encodes `s` as UTF-8, keeping only `A-Z a-z 0-9 - . _ ~`; a space becomes `%20`.
    public static func encode(_ s: String) -> String {
        var encoded = ""
        encoded.reserveCapacity(s.utf8.count)
        for byte in s.utf8 {
            if isUnreserved(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + hexDigits[Int(byte >> 4)] + hexDigits[Int(byte & 0x0F)]
            }
        }
        return encoded
    }

    /// Joins pairs as `name=value&name=value`, both sides encoded, in the given order, without a leading `?`.
    public static func queryString(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    private static let hexDigits = "0123456789ABCDEF".map(String.init)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
