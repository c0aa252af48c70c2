// Learning a KnownSchema from SDL text (`origin.schema: <file>`), read with the GraphQL library's parser.

import Foundation
private import GraphQL

extension KnownSchema {
    /// Reads the type definitions and extensions of `sdl`; the roots come from its `schema { … }`
    /// block, or else are the types named `Query`, `Mutation` and `Subscription`.
    package init(sdl: String) throws(SchemaError) {
        let document: Document
        do {
            try GraphQLSourceCheck.check(sdl)
        } catch {
            throw SchemaError("SDL does not parse: \(error.message)", line: error.locations.first?.line)
        }
        do {
            document = try parse(source: sdl, noLocation: true)
        } catch let error as GraphQLError {
            // The library's message goes on with an excerpt of the source; its first line says it all.
            let message = error.message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? error.message
            throw SchemaError("SDL does not parse: \(message)", line: error.locations.first?.line)
        } catch {
            throw SchemaError("SDL does not parse: \(error)")
        }
        var builder = SDLSchemaBuilder()
        for definition in document.definitions { builder.add(definition) }
        self = try builder.build()
    }

    /// Reads the SDL file at `path`; its errors name the file and, when the parser says, the line.
    package init(sdlFile path: String) throws(SchemaError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SchemaError("cannot read the SDL file", file: path)
        }
        do {
            try self.init(sdl: String(decoding: data, as: UTF8.self))
        } catch {
            var located = error
            located.file = path
            throw located
        }
    }
}

/// Accumulates types over definitions and extensions, which may come in any order.
private struct SDLSchemaBuilder {
    var kinds: [String: KnownSchema.Kind] = [:]
    var fields: [String: [String: KnownSchema.Field]] = [:]
    var roots: [OperationType: String] = [:]

    mutating func add(_ definition: any Definition) {
        switch definition {
        case let object as ObjectTypeDefinition: addComposite(object.name.value, .object, object.fields)
        case let object as TypeExtensionDefinition:
            addComposite(object.definition.name.value, .object, object.definition.fields)
        case let interface as InterfaceTypeDefinition: addComposite(interface.name.value, .interface, interface.fields)
        case let interface as InterfaceExtensionDefinition:
            addComposite(interface.definition.name.value, .interface, interface.definition.fields)
        case let union as UnionTypeDefinition: kinds[union.name.value] = .union
        case let union as UnionExtensionDefinition: kinds[union.definition.name.value] = .union
        case let scalar as ScalarTypeDefinition: kinds[scalar.name.value] = .scalar
        case let enumeration as EnumTypeDefinition: kinds[enumeration.name.value] = .enumeration
        case let input as InputObjectTypeDefinition: kinds[input.name.value] = .inputObject
        case let schema as SchemaDefinition:
            for root in schema.operationTypes { roots[root.operation] = root.type.name.value }
        default: break
        }
    }

    mutating func addComposite(_ name: String, _ kind: KnownSchema.Kind, _ definitions: [FieldDefinition]) {
        kinds[name] = kind
        for definition in definitions {
            fields[name, default: [:]][definition.name.value] = Self.field(definition.type)
        }
    }

    static func field(_ type: any GraphQL.`Type`) -> KnownSchema.Field {
        switch type {
        case let nonNull as NonNullType:
            let inner = field(nonNull.type)
            return .init(typeName: inner.typeName, signature: inner.signature + "!")
        case let list as ListType:
            let inner = field(list.type)
            return .init(typeName: inner.typeName, signature: "[" + inner.signature + "]")
        case let named as NamedType:
            return .init(typeName: named.name.value, signature: named.name.value)
        default:
            return .init(typeName: "", signature: "")
        }
    }

    func build() throws(SchemaError) -> KnownSchema {
        func root(_ operation: OperationType, default name: String) -> String? {
            roots[operation] ?? (kinds[name] == .object ? name : nil)
        }
        guard let query = root(.query, default: "Query") else { throw SchemaError("SDL defines no query type") }
        return KnownSchema(
            kinds: kinds, fields: fields, queryType: query,
            mutationType: root(.mutation, default: "Mutation"),
            subscriptionType: root(.subscription, default: "Subscription"))
    }
}
