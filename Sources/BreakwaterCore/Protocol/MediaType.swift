// Media-type checks for Content-Type headers, without allocating (they run on every POST).

/// Parsing of `type/subtype; parameters` values.
package enum MediaType {
    /// Whether `contentType` is `application/json`, parameters such as charset allowed.
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        // The exact common value first: one comparison, where the scan below cost hundreds.
        return contentType == "application/json" || essence(of: contentType, is: json)
    }

    /// Whether a response's `contentType` is JSON: `application/json` or
    /// `application/graphql-response+json`, parameters allowed.
    package static func isJSONResponse(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        return contentType == "application/json" || essence(of: contentType, is: json)
            || essence(of: contentType, is: graphQLResponseJSON)
    }

    private static let json = Array("application/json".utf8)
    private static let graphQLResponseJSON = Array("application/graphql-response+json".utf8)

    /// Whether the part of `value` before any `;`, without surrounding spaces, equals
    /// `expected` (lower-case) ignoring ASCII case.
    private static func essence(of value: String, is expected: [UInt8]) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var start = 0
            while start < bytes.count && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: ";") { end += 1 }
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            guard end - start == expected.count else { return false }
            for i in 0..<expected.count {
                if bytes[start + i].asciiLowercased != expected[i] { return false }
            }
            return true
        }
    }
}
