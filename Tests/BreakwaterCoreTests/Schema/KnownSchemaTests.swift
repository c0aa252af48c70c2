// KnownSchema from SDL text and from introspection answers.

import BreakwaterCore
import Testing

struct KnownSchemaTests {
    @Test func sdlGivesKindsFieldsAndRoots() {
        let schema = SchemaFixtures.schema
        #expect(schema.kind(of: "Launch") == .object)
        #expect(schema.kind(of: "Node") == .interface)
        #expect(schema.kind(of: "SearchResult") == .union)
        #expect(schema.kind(of: "PatchSize") == .enumeration)
        #expect(schema.kind(of: "ID") == .scalar)
        #expect(schema.kind(of: "Nope") == nil)
        #expect(schema.field("launches", on: "Query") == .init(typeName: "LaunchConnection", signature: "LaunchConnection!"))
        #expect(schema.field("search", on: "Query") == .init(typeName: "SearchResult", signature: "[SearchResult!]!"))
        #expect(schema.field("launches", on: "LaunchConnection") == .init(typeName: "Launch", signature: "[Launch]!"))
        #expect(schema.field("name", on: "Mission")?.typeName == "String")
        #expect(schema.field("id", on: "Node") == .init(typeName: "ID", signature: "ID!"))
        #expect(schema.field("id", on: "Mission") == nil)
        #expect(schema.rootType(for: .query) == "Query")
        #expect(schema.rootType(for: .mutation) == "Mutation")
        #expect(schema.rootType(for: .subscription) == nil)
    }

    @Test func sdlSchemaBlockAndExtensionsAreRead() throws {
        let schema = try KnownSchema(
            sdl: """
                schema { query: Root mutation: Change }
                type Root { a: A }
                type Change { b: Int }
                type A { x: Int }
                extend type A { y: [A] }
                """)
        #expect(schema.rootType(for: .query) == "Root")
        #expect(schema.rootType(for: .mutation) == "Change")
        #expect(schema.field("y", on: "A") == .init(typeName: "A", signature: "[A]"))
        #expect(schema.field("x", on: "A")?.typeName == "Int")
    }

    @Test(arguments: ["type Query {", "type Thing { a: Int }", "{ launches { id } }", "type Query { a: Int }\n\"\\u12"])
    func unusableSDLThrows(sdl: String) {
        #expect(throws: SchemaError.self) { try KnownSchema(sdl: sdl) }
    }

    @Test func introspectionAnswerGivesTheSameSchemaAsItsSDL() throws {
        let answer = #"""
            {"data":{"__schema":{"queryType":{"name":"Query"},"mutationType":null,"subscriptionType":null,"types":[
            {"kind":"OBJECT","name":"Query","fields":[
              {"name":"launch","type":{"kind":"OBJECT","name":"Launch","ofType":null}},
              {"name":"search","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"LIST","name":null,"ofType":
                {"kind":"NON_NULL","name":null,"ofType":{"kind":"UNION","name":"SearchResult","ofType":null}}}}}]},
            {"kind":"OBJECT","name":"Launch","fields":[
              {"name":"id","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"ID","ofType":null}}},
              {"name":"site","type":{"kind":"SCALAR","name":"String","ofType":null}}]},
            {"kind":"INTERFACE","name":"Node","fields":[
              {"name":"id","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"SCALAR","name":"ID","ofType":null}}}]},
            {"kind":"UNION","name":"SearchResult","fields":null},
            {"kind":"ENUM","name":"PatchSize","fields":null},
            {"kind":"SCALAR","name":"ID","fields":null},
            {"kind":"SCALAR","name":"String","fields":null}]}}}
            """#
        let fromIntrospection = try KnownSchema(introspection: Array(answer.utf8))
        let fromSDL = try KnownSchema(
            sdl: """
                type Query { launch: Launch search: [SearchResult!]! }
                type Launch { id: ID! site: String }
                interface Node { id: ID! }
                union SearchResult = Launch
                enum PatchSize { SMALL }
                """)
        #expect(fromIntrospection == fromSDL)
    }

    @Test(arguments: [
        "not json", #"{"data":null}"#, #"{"errors":[{"message":"introspection disabled"}]}"#,
        #"{"data":{"__schema":{"queryType":{"name":"Query"},"types":[{"kind":"WHAT","name":"X"}]}}}"#,
        #"{"data":{"__schema":{"queryType":null,"types":[]}}}"#,
    ])
    func unusableIntrospectionAnswersThrow(answer: String) {
        #expect(throws: SchemaError.self) { try KnownSchema(introspection: Array(answer.utf8)) }
    }

    @Test func demoOriginAnswersTheIntrospectionQuery() async throws {
        let answer = try await SchemaTestOrigin.execute(KnownSchema.introspectionQuery)
        let schema = try KnownSchema(introspection: answer)
        #expect(schema.rootType(for: .query) == "Query")
        #expect(schema.rootType(for: .mutation) == "Mutation")
        #expect(schema.kind(of: "Launch") == .object)
        #expect(schema.field("launches", on: "LaunchConnection")?.typeName == "Launch")
        #expect(schema.field("id", on: "Launch")?.signature == "ID!")
        #expect(schema.kind(of: "__Schema") == .object)
    }
}
