// The entities a GraphQL answer names, as tags that purges and mutations find entries by
// (docs/SCHEMA.md), and the types it holds, which the per-type policy reads (`cache.types`).

/// Extraction of `Type:id` and `Type` tags, and of the types present, from a response's `data`.
package enum EntityTags {
    /// The most tags one entry carries, so a huge list response cannot bloat the tag index.
    package static let limit = 1_000

    /// The tag of an entry stored while a schema was expected (`origin.schema` auto or a file,
    /// `cache.entity_tags: auto`) but its document could not be checked against one (none known
    /// yet, a field it lacks): its entity tags are only those the client selected, so every purge
    /// by an entity or a type reaches it too. `~` is in no GraphQL name: no `Type` or `Type:id` is it.
    package static let unchecked = "~unchecked"

    /// Whether a purge of `tag` is a purge by an entity or a type (not an operation or a hash,
    /// nor the unchecked mark itself).
    package static func isEntityTag(_ tag: String) -> Bool {
        tag != unchecked && !tag.hasPrefix("op:") && !tag.hasPrefix("hash:")
    }

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

    /// A member value as far as entities need it: a string, a number's text, or anything else.
    package enum Scalar {
        case string(String)
        case number(String)
        case other

        init(_ value: JSONValue) {
            switch value {
            case .string(let text): self = .string(text)
            case .number(let text): self = .number(text)
            case .null, .bool, .array, .object: self = .other
            }
        }

        /// A usable key value: a non-empty string or a number's text.
        var identifier: String? {
            switch self {
            case .string(let text) where !text.isEmpty: text
            case .number(let text): text
            default: nil
            }
        }
    }

    /// What one object says about its entity, read member by member.
    package struct Object {
        private var type: String?
        private var plainType: String?
        private var keyValues: [(field: Substring, value: String)] = []
        private var plainID: String?
        private var keyIsNull = false

        package init() {}

        /// Whether `key` is a member `read` looks at: `__typename`, `id`, or a reserved alias.
        package static func reads(_ key: String) -> Bool {
            key == "__typename" || key == "id" || ReservedAlias.isReserved(key)
        }

        package mutating func read(_ key: String, _ value: Scalar) {
            switch key {
            case ReservedAlias.typename:
                if case .string(let text) = value { type = text }
            case "__typename":
                if case .string(let text) = value { plainType = text }
            case "id":
                plainID = value.identifier
            case let alias where ReservedAlias.isReserved(alias):
                let field = ReservedAlias.keyField(of: alias)
                guard !keyValues.contains(where: { $0.field == field }) else { return }
                if let identifier = value.identifier { keyValues.append((field, identifier)) } else { keyIsNull = true }
            default:
                break
            }
        }

        /// The object's type, and its entity tag when it has a usable key.
        var entity: (type: String, tag: String?)? {
            guard let type = type ?? plainType, !type.isEmpty else { return nil }
            let key: String? =
                switch keyValues.count {
                case 0: plainID
                case 1: keyValues[0].value
                default: keyValues.map(\.value).joined(separator: ":")
                }
            guard !keyIsNull, let key else { return (type, nil) }
            return (type, type + ":" + key)
        }
    }

    package mutating func add(entityOf members: [(key: String, value: JSONValue)]) {
        var object = Object()
        for member in members where Object.reads(member.key) { object.read(member.key, Scalar(member.value)) }
        add(object)
    }

    package mutating func add(_ object: Object) {
        guard let (type, tag) = object.entity else { return }
        types.insert(type)
        guard let tag else { return }
        if typeTags.count < EntityTags.limit { typeTags.insert(type) }
        // Stop growing once full; the set is cut to `limit` at the end anyway.
        if entities.count < EntityTags.limit { entities.insert(tag) }
    }

    /// The tags, sorted: type tags first in the cap, then as many `Type:key` tags as fit.
    package func sortedTags() -> [String] {
        let keptTypes = typeTags.sorted().prefix(EntityTags.limit)
        let keptEntities = entities.sorted().prefix(EntityTags.limit - keptTypes.count)
        return (keptTypes + keptEntities).sorted()
    }

}
