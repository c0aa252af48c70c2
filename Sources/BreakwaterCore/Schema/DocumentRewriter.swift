// Adds `__typename` and the key fields of each type under reserved aliases to every selection set of
// a document (README "The origin side"), so that answers name their entities although the client selected
// neither. Done once per document hash; the rewritten text is what goes upstream.

private import GraphQL

/// Rewrites documents against one known schema and the key fields configured per type.
package struct DocumentRewriter: Sendable {
    /// Key fields of a type with no `cache.types.<T>.keys`.
    package static let defaultKeys = ["id"]

    package let schema: KnownSchema
    /// `cache.types.<T>.keys` by type name.
    package let keys: [String: [String]]

    package init(schema: KnownSchema, keys: [String: [String]] = [:]) {
        self.schema = schema
        self.keys = keys
    }

    /// The document with the reserved selections inserted right after the `{` of each selection set
    /// that lacks them, everything else byte for byte as the client wrote it; the document itself when
    /// nothing was missing. Nil when it does not parse, names a type or field the schema does not
    /// hold, or already uses a reserved alias: the caller then sends it as it is.
    package func rewrite(_ document: String) -> String? {
        // Checks nesting (the parser recurses once per level) before parsing with locations.
        guard let analysis = try? OperationAnalysis(document: document),
            let parsed = try? parse(source: document, noLocation: false)
        else { return nil }
        var insertions = Insertions()
        // The analysis lists the operations in document order, with their kinds.
        var kinds = analysis.operations.map(\.kind).makeIterator()
        for definition in parsed.definitions {
            switch definition {
            case let operation as OperationDefinition:
                // The root's own selection set names no entity: nothing is added there.
                guard let kind = kinds.next(), let root = schema.rootType(for: kind),
                    visitSelections(of: operation.selectionSet, on: root, into: &insertions)
                else { return nil }
            case let fragment as FragmentDefinition:
                guard visit(fragment.selectionSet, on: fragment.typeCondition.name.value, isFragment: true,
                    into: &insertions)
                else { return nil }
            default:
                return nil
            }
        }
        return insertions.apply(to: document)
    }

    /// Adds what `set` lacks on `type`, then walks its selections; false when something is unknown.
    /// A fragment's body skips `__typename`: the selection set it is spread into already answers it.
    private func visit(_ set: SelectionSet, on type: String, isFragment: Bool, into insertions: inout Insertions) -> Bool {
        guard let kind = schema.kind(of: type), kind.isComposite, let brace = set.loc?.start else { return false }
        var added: [String] = []
        if !isFragment, !selectsPlainly("__typename", in: set) {
            added.append("\(ReservedAlias.typename): __typename")
        }
        if kind != .union {
            let typeKeys = keys[type] ?? Self.defaultKeys
            let keysAsSelected = typeKeys == Self.defaultKeys && selectsPlainly("id", in: set)
            for key in typeKeys where !keysAsSelected {
                // A key must be a field of the type answering a scalar; others cannot name an entity.
                guard let field = schema.field(key, on: type), schema.kind(of: field.typeName)?.isComposite == false,
                    !field.signature.hasPrefix("[")
                else { continue }
                added.append("\(ReservedAlias.key(key, signature: field.signature)): \(key)")
            }
        }
        if !added.isEmpty { insertions.add(" " + added.joined(separator: " ") + " ", at: brace + 1) }
        return visitSelections(of: set, on: type, into: &insertions)
    }

    private func visitSelections(of set: SelectionSet, on type: String, into insertions: inout Insertions) -> Bool {
        for selection in set.selections {
            switch selection {
            case let field as GraphQL.Field:
                if let alias = field.alias?.value, ReservedAlias.isReserved(alias) { return false }
                if field.name.value == "__typename" {
                    guard field.selectionSet == nil else { return false }
                    continue
                }
                guard let definition = schema.field(field.name.value, on: type),
                    let resultKind = schema.kind(of: definition.typeName)
                else { return false }
                if let subselection = field.selectionSet {
                    guard visit(subselection, on: definition.typeName, isFragment: false, into: &insertions)
                    else { return false }
                } else if resultKind.isComposite {
                    return false
                }
            case let inline as InlineFragment:
                let condition = inline.typeCondition?.name.value ?? type
                guard visit(inline.selectionSet, on: condition, isFragment: true, into: &insertions) else { return false }
            case is FragmentSpread:
                continue  // The fragment's definition is rewritten once, where it is written.
            default:
                return false
            }
        }
        return true
    }

    /// True when `set` itself selects `name` under its own name with no directive, so the answer
    /// always holds it there.
    private func selectsPlainly(_ name: String, in set: SelectionSet) -> Bool {
        set.selections.contains { selection in
            guard let field = selection as? GraphQL.Field else { return false }
            return field.name.value == name && (field.alias == nil || field.alias?.value == name)
                && field.directives.isEmpty
        }
    }
}

/// Text to insert at UTF-8 offsets of the original document (the parser's locations are UTF-8 offsets).
private struct Insertions {
    private var items: [(offset: Int, text: String)] = []

    mutating func add(_ text: String, at offset: Int) { items.append((offset, text)) }

    func apply(to document: String) -> String {
        guard !items.isEmpty else { return document }
        var bytes = Array(document.utf8)
        for item in items.sorted(by: { $0.offset > $1.offset }) {
            bytes.insert(contentsOf: item.text.utf8, at: item.offset)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
