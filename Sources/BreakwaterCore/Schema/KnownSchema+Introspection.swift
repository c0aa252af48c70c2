// Learning a KnownSchema from a standard introspection answer (`origin.schema: auto`), the JSON an
// origin returns for the introspection query: `{"data":{"__schema":{...}}}`.

extension KnownSchema {
    /// The introspection query whose answer `init(introspection:)` reads: the parts of graphql-js's
    /// `getIntrospectionQuery()` the rewriter needs (type kinds, fields and their wrapped types).
    package static let introspectionQuery = """
        query BreakwaterIntrospection { __schema { queryType { name } mutationType { name } \
        subscriptionType { name } types { kind name fields(includeDeprecated: true) { name type { ...TypeRef } } } } }
        fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name \
        ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }
        """

    /// Reads `__schema.types` (kind, name, fields with their type references) and the root type names.
    package init(introspection bytes: [UInt8]) throws(SchemaError) {
        let answer: JSONValue
        do {
            answer = try JSONParser.parse(bytes)
        } catch {
            throw SchemaError("introspection answer is not JSON: \(error)")
        }
        guard let schema = answer["data"]?["__schema"], schema.isObject else {
            throw SchemaError("introspection answer has no data.__schema")
        }
        guard case .array(let types)? = schema["types"] else {
            throw SchemaError("introspection answer has no __schema.types list")
        }
        var kinds: [String: Kind] = [:]
        var fields: [String: [String: Field]] = [:]
        for type in types {
            guard let name = type["name"]?.stringValue, let kind = Kind(introspectionKind: type["kind"]?.stringValue)
            else { throw SchemaError("introspection type without a name or a known kind") }
            kinds[name] = kind
            guard kind == .object || kind == .interface, case .array(let definitions)? = type["fields"] else { continue }
            var typeFields: [String: Field] = [:]
            for definition in definitions {
                guard let fieldName = definition["name"]?.stringValue,
                    let field = Self.field(from: definition["type"], depth: 0)
                else { throw SchemaError("introspection field of \(name) without a name or a type") }
                typeFields[fieldName] = field
            }
            fields[name] = typeFields
        }
        func rootName(_ key: String) -> String? { schema[key]?["name"]?.stringValue }
        guard let query = rootName("queryType") else { throw SchemaError("introspection answer names no queryType") }
        self.init(
            kinds: kinds, fields: fields, queryType: query,
            mutationType: rootName("mutationType"), subscriptionType: rootName("subscriptionType"))
    }

    /// Unwraps a `{kind, name, ofType}` reference; the standard query nests at most eight wrappers.
    private static func field(from reference: JSONValue?, depth: Int) -> Field? {
        guard let reference, depth < 16 else { return nil }
        switch reference["kind"]?.stringValue {
        case "NON_NULL":
            guard let inner = field(from: reference["ofType"], depth: depth + 1) else { return nil }
            return Field(typeName: inner.typeName, signature: inner.signature + "!")
        case "LIST":
            guard let inner = field(from: reference["ofType"], depth: depth + 1) else { return nil }
            return Field(typeName: inner.typeName, signature: "[" + inner.signature + "]")
        default:
            guard let name = reference["name"]?.stringValue else { return nil }
            return Field(typeName: name, signature: name)
        }
    }
}

extension KnownSchema.Kind {
    fileprivate init?(introspectionKind: String?) {
        switch introspectionKind {
        case "OBJECT": self = .object
        case "INTERFACE": self = .interface
        case "UNION": self = .union
        case "SCALAR": self = .scalar
        case "ENUM": self = .enumeration
        case "INPUT_OBJECT": self = .inputObject
        default: return nil
        }
    }
}
