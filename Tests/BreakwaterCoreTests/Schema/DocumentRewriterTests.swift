// The document rewriter on tricky documents: exact texts it sends upstream, and when it declines.

import BreakwaterCore
import Testing

/// What the rewriter inserts after a selection set's `{`.
private let both = " __bw_typename: __typename __bw_id: id "
private let typename = " __bw_typename: __typename "
private let id = " __bw_id: id "

struct DocumentRewriterTests {
    @Test(arguments: [
        (
            "{ launch(id: 1) { site mission { name } rocket { name } } }",
            "{ launch(id: 1) {\(both) site mission {\(typename) name } rocket {\(both) name } } }"
        ),
        // Nested lists of objects; LaunchConnection has no id.
        (
            "{ launches { cursor launches { site rocket { name } } } }",
            "{ launches {\(typename) cursor launches {\(both) site rocket {\(both) name } } } }"
        ),
        // Fields selected plainly are not asked for twice.
        ("{ launch(id: 1) { id site } }", "{ launch(id: 1) {\(typename) id site } }"),
        ("{ launch(id: 1) { __typename site } }", "{ launch(id: 1) {\(id) __typename site } }"),
        ("{ launch(id: 1) { __typename: __typename id: id } }", "{ launch(id: 1) { __typename: __typename id: id } }"),
        // Client aliases named like the fields they are not.
        (
            "{ launch(id: 1) { id: site __typename: isBooked } }",
            "{ launch(id: 1) {\(both) id: site __typename: isBooked } }"
        ),
        // A conditional id may be absent from the answer, so the reserved one is added; directives stay.
        (
            "query Q($x: Boolean!) { launch(id: 1) { id @include(if: $x) site @skip(if: true) } }",
            "query Q($x: Boolean!) { launch(id: 1) {\(both) id @include(if: $x) site @skip(if: true) } }"
        ),
        // Fragments on an interface and inline fragments on its implementations.
        (
            "query { node(id: \"1\") { ...NodeParts ... on Launch { site } } } fragment NodeParts on Node { id }",
            "query { node(id: \"1\") {\(both) ...NodeParts ... on Launch {\(id) site } } } fragment NodeParts on Node { id }"
        ),
        (
            "{ me { trips { ...LaunchTile } } } fragment LaunchTile on Launch { site rocket { name } }",
            "{ me {\(both) trips {\(both) ...LaunchTile } } } fragment LaunchTile on Launch {\(id) site rocket {\(both) name } }"
        ),
        // A list of a union: only __typename on the union; each member's own key type gets its own alias.
        (
            "{ search(text: \"x\") { ... on Launch { site } ... on Rocket { id name } ... on Review { body } } }",
            "{ search(text: \"x\") {\(typename) ... on Launch {\(id) site } ... on Rocket { id name } "
                + "... on Review { __bw_id__Int_: id  body } } }"
        ),
        // A scalar field with arguments and an enum value gets nothing inside.
        (
            "{ launch(id: 1) { mission { missionPatch(size: SMALL) } } }",
            "{ launch(id: 1) {\(both) mission {\(typename) missionPatch(size: SMALL) } } }"
        ),
        (
            "mutation Book { bookTrips(launchIds: [\"1\"]) { success launches { id } } }",
            "mutation Book { bookTrips(launchIds: [\"1\"]) {\(typename) success launches {\(typename) id } } }"
        ),
        // Offsets are UTF-8 offsets: text before the insertion point may hold multi-byte characters.
        (
            "# día ünï 🚀\n{ launch(id: \"ü🚀\") { site } }",
            "# día ünï 🚀\n{ launch(id: \"ü🚀\") {\(both) site } }"
        ),
        // Nothing missing: the document comes back as it is.
        ("{ launches { cursor hasMore } }", "{ launches {\(typename) cursor hasMore } }"),
        ("{ launches { __typename cursor } }", "{ launches { __typename cursor } }"),
    ])
    func rewritesEverySelectionSetThatLacksTheReservedFields(document: String, expected: String) {
        #expect(SchemaFixtures.rewriter.rewrite(document) == expected)
    }

    @Test func configuredKeysReplaceIDAndAreAlwaysAliased() {
        let rewriter = DocumentRewriter(
            schema: SchemaFixtures.schema, keys: ["Launch": ["site"], "Rocket": ["id", "name"], "Mission": ["name"]])
        #expect(
            rewriter.rewrite("{ launch(id: 1) { id site rocket { id } mission { name } } }")
                == "{ launch(id: 1) {\(typename)__bw_site__String: site  id site rocket {\(typename)__bw_id: id __bw_name__String: name  id } "
                + "mission {\(typename)__bw_name__String: name  name } } }")
    }

    @Test(arguments: [
        "{ launch(id: 1) { site ",  // syntax error
        "{ launch(id: 1) { nope } }",  // unknown field
        "query { launch(id: 1) { ...F } } fragment F on Nope { site }",  // unknown type
        "{ launch(id: 1) { __bw_id: site } }",  // a reserved alias from the client
        "{ launch(id: 1) }",  // an object without a selection set
        "{ launch(id: 1) { site { length } } }",  // a selection set on a scalar
        "{ launch(id: 1) { __typename { x } } }",
        "subscription { launch(id: 1) { site } }",  // no subscription root
        "{ __schema { types { name } } }",  // introspection goes as it is
        "type Query { a: Int }",  // not an executable document
    ])
    func declinesDocumentsItCannotRewriteSafely(document: String) {
        #expect(SchemaFixtures.rewriter.rewrite(document) == nil)
    }

    @Test func declinesNestingBeyondTheParserLimit() {
        let deep = String(repeating: "{ a ", count: 200) + String(repeating: "}", count: 200)
        #expect(SchemaFixtures.rewriter.rewrite(deep) == nil)
    }
}
