// The entities a GraphQL answer names, as tags that purges and mutations find entries by
// (SPEC section 5.3).

/// Extraction of `Type:id` and `Type` tags from a response's `data`.
package enum EntityTags {
    /// The most tags one entry carries, so a huge list response cannot bloat the tag index.
    package static let limit = 1_000

    /// Every object in `data` with a string `__typename` and a string or number `id` yields
    /// `Type:id` (the number's text as written) and `Type`; the result is unique and sorted.
    ///
    /// Beyond `limit`, type tags are kept before `Type:id` tags: a purge by entity may then miss
    /// the entry, but a purge by its type still reaches it.
    package static func extract(from data: JSONValue) -> [String] {
        var types = Set<String>()
        var entities = Set<String>()
        collect(data, types: &types, entities: &entities)
        let keptTypes = types.sorted().prefix(limit)
        let keptEntities = entities.sorted().prefix(limit - keptTypes.count)
        return (keptTypes + keptEntities).sorted()
    }

    /// Walks the tree; recursion depth is bounded by the JSON parser's nesting limit.
    private static func collect(_ value: JSONValue, types: inout Set<String>, entities: inout Set<String>) {
        switch value {
        case .object(let members):
            if let type = value["__typename"]?.stringValue, !type.isEmpty, let id = identifier(value["id"]) {
                if types.count < limit { types.insert(type) }
                // Stop growing once full; the set would be cut to `limit` at the end anyway.
                if entities.count < limit { entities.insert("\(type):\(id)") }
            }
            for member in members { collect(member.value, types: &types, entities: &entities) }
        case .array(let elements):
            for element in elements { collect(element, types: &types, entities: &entities) }
        case .null, .bool, .number, .string:
            break
        }
    }

    private static func identifier(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty: text
        case .number(let text): text
        default: nil
        }
    }
}
