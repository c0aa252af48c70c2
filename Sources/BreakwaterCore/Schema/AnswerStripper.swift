// Reads entity tags from an answer to a rewritten document and removes the reserved members the
// rewriter added (SPEC sections 4 and 5.3), so the client gets exactly the fields it asked for.

/// An origin answer with the reserved members removed, and what its data names.
package struct StrippedAnswer: Sendable, Equatable {
    /// The answer as the origin would have sent it for the client's own document (modulo
    /// whitespace and string escapes); the original bytes when no reserved member was present.
    package var body: [UInt8]
    /// `Type:key` and `Type` tags, unique and sorted, at most `EntityTags.limit`, as `EntityTags` makes them.
    package var tags: [String]
    /// Every type an object of `data` names, keyed or not (the per-type policy reads them).
    package var types: Set<String>
    /// The answer has a top-level `errors` member (`OriginAnswer.hasErrors`).
    package var hasErrors: Bool

    package init(body: [UInt8], tags: [String], types: Set<String> = [], hasErrors: Bool = false) {
        self.body = body
        self.tags = tags
        self.types = types
        self.hasErrors = hasErrors
    }
}

/// Strips `__bw_*` members from an answer's `data` and collects the entities they name.
package enum AnswerStripper {
    /// Nil when `answer` is not a JSON object. An object's type and key are read as
    /// `EntityCollector` reads them. Members other than `data` are kept as they are.
    package static func strip(_ answer: [UInt8]) -> StrippedAnswer? {
        guard let value = try? JSONParser.parse(answer), case .object(var members) = value else { return nil }
        let hasErrors = OriginAnswer.hasErrors(value)
        guard let dataIndex = members.firstIndex(where: { $0.key == "data" }) else {
            return StrippedAnswer(body: answer, tags: [], hasErrors: hasErrors)
        }
        var collector = EntityCollector()
        var removed = false
        members[dataIndex].value = strip(members[dataIndex].value, collector: &collector, removed: &removed)
        return StrippedAnswer(
            body: removed ? JSONWriter.encode(.object(members)) : answer, tags: collector.sortedTags(),
            types: collector.types, hasErrors: hasErrors)
    }

    /// Recursion depth is bounded by the JSON parser's nesting limit.
    private static func strip(_ value: JSONValue, collector: inout EntityCollector, removed: inout Bool) -> JSONValue {
        switch value {
        case .object(let members):
            collector.add(entityOf: members)
            var kept: [(key: String, value: JSONValue)] = []
            kept.reserveCapacity(members.count)
            for member in members {
                if ReservedAlias.isReserved(member.key) {
                    removed = true
                } else {
                    kept.append((member.key, strip(member.value, collector: &collector, removed: &removed)))
                }
            }
            return .object(kept)
        case .array(let elements):
            return .array(elements.map { strip($0, collector: &collector, removed: &removed) })
        case .null, .bool, .number, .string:
            return value
        }
    }
}
