// The entities a GraphQL answer names, as tags that purges and mutations find entries by
// (SPEC section 5.3), and the types it holds, which the per-type policy reads (`cache.types`).

/// Extraction of `Type:id` and `Type` tags, and of the types present, from a response's `data`.
package enum EntityTags {
    /// The most tags one entry carries, so a huge list response cannot bloat the tag index.
    package static let limit = 1_000

    /// Every object in `data` with a string `__typename` and a string or number `id` yields
    /// `Type:id` (the number's text as written) and `Type`; the result is unique and sorted.
    ///
    /// Beyond `limit`, type tags are kept before `Type:id` tags: a purge by entity may then miss
    /// the entry, but a purge by its type still reaches it.
    package static func extract(from data: JSONValue) -> [String] {
        summary(of: data).tags
    }

    /// The tags of `data` and every type an object in it names (keyed or not).
    package static func summary(of data: JSONValue) -> (tags: [String], types: Set<String>) {
        var collector = EntityCollector()
        collect(data, into: &collector)
        return (collector.sortedTags(), collector.types)
    }

    /// Walks the tree; recursion depth is bounded by the JSON parser's nesting limit.
    private static func collect(_ value: JSONValue, into collector: inout EntityCollector) {
        switch value {
        case .object(let members):
            collector.add(entityOf: members)
            for member in members { collect(member.value, into: &collector) }
        case .array(let elements):
            for element in elements { collect(element, into: &collector) }
        case .null, .bool, .number, .string:
            break
        }
    }
}

/// The types and entities of the objects of one answer, as the objects are visited.
///
/// An object's type is its reserved `__bw_typename` (the rewriter's), else its `__typename`; its
/// key is the `__bw_<key>` members' values joined by `:` in answer order, else its `id`. Tags are
/// unique and capped at `EntityTags.limit`, type tags kept first.
package struct EntityCollector {
    /// Every type named, keyed or not, unbounded by `limit` (a schema has few types).
    package private(set) var types = Set<String>()
    private var typeTags = Set<String>()
    private var entities = Set<String>()

    package init() {}

    package mutating func add(entityOf members: [(key: String, value: JSONValue)]) {
        var type: String?
        var plainType: String?
        var keyValues: [(field: Substring, value: String)] = []
        var plainID: String?
        var keyIsNull = false
        for member in members {
            switch member.key {
            case ReservedAlias.typename: type = member.value.stringValue
            case "__typename": plainType = member.value.stringValue
            case "id": plainID = Self.identifier(member.value)
            case let alias where ReservedAlias.isReserved(alias):
                let field = ReservedAlias.keyField(of: alias)
                guard !keyValues.contains(where: { $0.field == field }) else { continue }
                if let value = Self.identifier(member.value) { keyValues.append((field, value)) } else { keyIsNull = true }
            default: break
            }
        }
        guard let type = type ?? plainType, !type.isEmpty else { return }
        types.insert(type)
        guard !keyIsNull, let key = keyValues.isEmpty ? plainID : keyValues.map(\.value).joined(separator: ":")
        else { return }
        if typeTags.count < EntityTags.limit { typeTags.insert(type) }
        // Stop growing once full; the set is cut to `limit` at the end anyway.
        if entities.count < EntityTags.limit { entities.insert("\(type):\(key)") }
    }

    /// The tags, sorted: type tags first in the cap, then as many `Type:key` tags as fit.
    package func sortedTags() -> [String] {
        let keptTypes = typeTags.sorted().prefix(EntityTags.limit)
        let keptEntities = entities.sorted().prefix(EntityTags.limit - keptTypes.count)
        return (keptTypes + keptEntities).sorted()
    }

    private static func identifier(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text) where !text.isEmpty: text
        case .number(let text): text
        default: nil
        }
    }
}
