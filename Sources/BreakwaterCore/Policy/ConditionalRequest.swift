// If-None-Match evaluation (RFC 9110 section 13.1.2), so a client revalidating an unchanged
// answer gets 304 instead of the body (README "The response cache").

/// Evaluation of conditional request headers against a stored entry's `ETag`.
package enum ConditionalRequest {
    /// Whether `If-None-Match` (all its field lines) matches `etag`, meaning the answer is 304.
    ///
    /// A field line that is exactly `*` matches. Otherwise each line is a comma-separated list of
    /// entity tags, compared weakly (`W/"x"` matches `"x"`), as RFC 9110 requires for this
    /// header. Malformed members, `*` inside a list among them, are ignored. An `etag` that is
    /// not itself a well-formed entity tag is compared as an opaque tag, whole.
    package static func ifNoneMatchMatches(_ headerValues: [String], etag: String) -> Bool {
        let current = opaqueTag(of: Array(etag.utf8))
        for value in headerValues {
            if value.trimmingWhitespace() == "*" { return true }
            if entityTags(in: Array(value.utf8)).contains(where: { $0.elementsEqual(current) }) { return true }
        }
        return false
    }

    /// The contents of `etag`'s quotes, or all of it when it is not one well-formed entity tag.
    private static func opaqueTag(of etag: [UInt8]) -> ArraySlice<UInt8> {
        var index = 0
        if let tag = scanEntityTag(etag, &index), index == etag.count { return tag }
        return etag[...]
    }

    /// The opaque tags (without quotes or `W/`) of the well-formed members of one list.
    private static func entityTags(in bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var tags: [ArraySlice<UInt8>] = []
        var index = 0
        while index < bytes.count {
            skipWhitespace(bytes, &index)
            let tag = scanEntityTag(bytes, &index)
            skipWhitespace(bytes, &index)
            if index < bytes.count, bytes[index] != UInt8(ascii: ",") {
                // Malformed member: drop it and resume after the next comma. A comma inside a
                // broken tag may cut it short; the rest is then malformed and dropped in turn.
                while index < bytes.count, bytes[index] != UInt8(ascii: ",") { index += 1 }
            } else if let tag {
                tags.append(tag)
            }
            index += 1
        }
        return tags
    }

    /// `[W/] DQUOTE *etagc DQUOTE`; returns the opaque tag's contents, or nil (index then moved
    /// past whatever was consumed).
    private static func scanEntityTag(_ bytes: [UInt8], _ index: inout Int) -> ArraySlice<UInt8>? {
        if bytes[index...].starts(with: [UInt8(ascii: "W"), UInt8(ascii: "/")]) { index += 2 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        index = start
        while index < bytes.count, isEntityTagCharacter(bytes[index]) { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        return bytes[start..<(index - 1)]
    }

    /// RFC 9110 `etagc`: `!`, `#`-`~` and obs-text; everything visible but the double quote.
    private static func isEntityTagCharacter(_ byte: UInt8) -> Bool {
        byte == 0x21 || (byte >= 0x23 && byte != 0x7F)
    }

    private static func skipWhitespace(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
            index += 1
        }
    }
}
