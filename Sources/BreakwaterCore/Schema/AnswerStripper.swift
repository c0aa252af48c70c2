// Reads entity tags from an answer to a rewritten document and removes the reserved members the
// rewriter added (SPEC sections 4 and 5.3), so the client gets exactly the fields it asked for.

/// An origin answer with the reserved members removed, and the entities it names.
package struct StrippedAnswer: Sendable, Equatable {
    /// The answer as the origin would have sent it for the client's own document (modulo
    /// whitespace and string escapes); the original bytes when no reserved member was present.
    package var body: [UInt8]
    /// `Type:key` and `Type` tags, unique and sorted, at most `EntityTags.limit`, as `EntityTags` makes them.
    package var tags: [String]

    package init(body: [UInt8], tags: [String]) {
        self.body = body
        self.tags = tags
    }
}

/// Strips `__bw_*` members from an answer's `data` and collects the entities they name.
package enum AnswerStripper {
    /// Nil when `answer` is not a JSON object. An object's type is its `__bw_typename`, else its
    /// `__typename`; its key is the `__bw_<key>` members' values joined by `:` in answer order, else
    /// its `id`. Members other than `data` are kept as they are.
    package static func strip(_ answer: [UInt8]) -> StrippedAnswer? {
        guard let value = try? JSONParser.parse(answer), case .object(var members) = value else { return nil }
        guard let dataIndex = members.firstIndex(where: { $0.key == "data" }) else {
            return StrippedAnswer(body: answer, tags: [])
        }
        var tags = TagCollector()
        var removed = false
        members[dataIndex].value = strip(members[dataIndex].value, tags: &tags, removed: &removed)
        return StrippedAnswer(body: removed ? JSONWriter.encode(.object(members)) : answer, tags: tags.sorted())
    }

    /// Recursion depth is bounded by the JSON parser's nesting limit.
    private static func strip(_ value: JSONValue, tags: inout TagCollector, removed: inout Bool) -> JSONValue {
        switch value {
        case .object(let members):
            tags.add(entityOf: members)
            var kept: [(key: String, value: JSONValue)] = []
            kept.reserveCapacity(members.count)
            for member in members {
                if ReservedAlias.isReserved(member.key) {
                    removed = true
                } else {
                    kept.append((member.key, strip(member.value, tags: &tags, removed: &removed)))
                }
            }
            return .object(kept)
        case .array(let elements):
            return .array(elements.map { strip($0, tags: &tags, removed: &removed) })
        case .null, .bool, .number, .string:
            return value
        }
    }
}

/// Unique type and entity tags, capped as `EntityTags.extract` caps them: type tags kept first.
private struct TagCollector {
    private var types = Set<String>()
    private var entities = Set<String>()

    mutating func add(entityOf members: [(key: String, value: JSONValue)]) {
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
        guard let type = type ?? plainType, !type.isEmpty, !keyIsNull,
            let key = keyValues.isEmpty ? plainID : keyValues.map(\.value).joined(separator: ":")
        else { return }
        if types.count < EntityTags.limit { types.insert(type) }
        if entities.count < EntityTags.limit { entities.insert("\(type):\(key)") }
    }

    func sorted() -> [String] {
        let keptTypes = types.sorted().prefix(EntityTags.limit)
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
