// The response names Breakwater adds to documents it sends upstream and removes from the answers
// (README "The origin side"): a client can never ask for them, so they never collide with its own fields.

/// Aliases starting with `__bw_`, for `__typename` and each key field the rewriter adds.
package enum ReservedAlias {
    package static let prefix = "__bw_"
    package static let typename = "__bw_typename"

    /// `__bw_<key>` for a key field typed `ID!`, else `__bw_<key>__<Type>` (`!` written `_`): two
    /// fields answering under one name in parallel fragments must have one type, so `Launch.id: ID!`
    /// and `Review.id: Int!` in a list of a union must not share an alias.
    package static func key(_ field: String, signature: String) -> String {
        if signature == "ID!" { return prefix + field }
        return prefix + field + "__" + signature.replacingOccurrences(of: "!", with: "_")
    }

    /// The key field a reserved key alias stands for (`id` for `__bw_id` and `__bw_id__Int_`); one
    /// object may carry a key under two aliases when an interface types it differently.
    package static func keyField(of alias: String) -> Substring {
        // Byte-wise: this runs for every reserved member of every answer.
        let utf8 = alias.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: prefix.utf8.count, limitedBy: utf8.endIndex) ?? utf8.endIndex
        var index = start
        while index < utf8.endIndex {
            let next = utf8.index(after: index)
            if utf8[index] == UInt8(ascii: "_"), next < utf8.endIndex, utf8[next] == UInt8(ascii: "_") {
                return alias[start..<index]
            }
            index = next
        }
        return alias[start...]
    }

    package static func isReserved(_ name: String) -> Bool { name.utf8.starts(with: prefix.utf8) }
}
