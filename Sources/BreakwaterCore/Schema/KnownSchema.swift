// The origin's types as far as the document rewriter needs them (README "The origin side"): which names are
// objects, interfaces or unions, their fields' result types, and the root operation types.

/// A schema reduced to what adding `__typename` and key fields to selection sets requires.
package struct KnownSchema: Sendable, Equatable {
    /// What a named type is; only objects, interfaces and unions take selection sets.
    package enum Kind: Sendable, Equatable {
        case object, interface, union, scalar, enumeration, inputObject

        /// True for the kinds a selection set can be written on.
        package var isComposite: Bool {
            switch self {
            case .object, .interface, .union: true
            case .scalar, .enumeration, .inputObject: false
            }
        }
    }

    /// One field of an object or interface type.
    package struct Field: Sendable, Equatable {
        /// The named type under any list and non-null wrappers (`Launch` for `[Launch!]!`).
        package var typeName: String
        /// The full type as written in SDL (`[Launch!]!`); two fields answering under one name must agree on it.
        package var signature: String

        package init(typeName: String, signature: String) {
            self.typeName = typeName
            self.signature = signature
        }
    }

    /// The scalars every schema has, whether or not its SDL or introspection lists them.
    package static let builtInScalars = ["String", "Int", "Float", "Boolean", "ID"]

    package private(set) var kinds: [String: Kind]
    /// Fields of object and interface types by type name, then by field name.
    package private(set) var fields: [String: [String: Field]]
    package private(set) var queryType: String?
    package private(set) var mutationType: String?
    package private(set) var subscriptionType: String?

    package init(
        kinds: [String: Kind], fields: [String: [String: Field]],
        queryType: String?, mutationType: String? = nil, subscriptionType: String? = nil
    ) {
        var kinds = kinds
        for scalar in Self.builtInScalars where kinds[scalar] == nil { kinds[scalar] = .scalar }
        self.kinds = kinds
        self.fields = fields
        self.queryType = queryType
        self.mutationType = mutationType
        self.subscriptionType = subscriptionType
    }

    /// The kind of the type named `name`, or nil when the schema does not hold it.
    package func kind(of name: String) -> Kind? { kinds[name] }

    /// The field `name` of the object or interface `type`, or nil when it has none.
    package func field(_ name: String, on type: String) -> Field? { fields[type]?[name] }

    /// The root type an operation of `kind` starts at, or nil when the schema has none.
    package func rootType(for kind: OperationKind) -> String? {
        switch kind {
        case .query: queryType
        case .mutation: mutationType
        case .subscription: subscriptionType
        }
    }
}
