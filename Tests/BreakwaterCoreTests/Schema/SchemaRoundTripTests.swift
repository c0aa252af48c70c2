// Rewrite, let an origin answer the rewritten document, strip: the client gets exactly the answer to
// its own document, and the entities are known although it selected no ids.

import BreakwaterCore
import BreakwaterDemoOrigin
import Testing

struct SchemaRoundTripTests {
    /// The demo origin (a real GraphQL executor) learned by introspection.
    private func demoRewriter() async throws -> DocumentRewriter {
        DocumentRewriter(schema: try KnownSchema(introspection: try await SchemaTestOrigin.execute(KnownSchema.introspectionQuery)))
    }

    @Test(arguments: [
        (
            "{ launch(id: 60) { site rocket { name } mission { name } } }",
            ["Launch", "Launch:60", "Rocket", "Rocket:falconheavy"]
        ),
        (
            "query Page { launches(pageSize: 2) { cursor launches { site isBooked rocket { type } } } }",
            ["Launch", "Launch:100", "Launch:99", "Rocket", "Rocket:falcon9"]
        ),
        (
            "{ launch(id: 7) { id: site __typename: isBooked rocket { name: id id: name } } }",
            ["Launch", "Launch:7", "Rocket", "Rocket:falcon9"]
        ),
        (
            "query Q($no: Boolean = false) { launch(id: 5) { id @include(if: $no) site @skip(if: $no) ...R } } "
                + "fragment R on Launch { rocket { ... on Rocket { name } } }",
            ["Launch", "Launch:5", "Rocket", "Rocket:falcon1"]
        ),
        ("{ launch(id: 3) { __typename id site } }", ["Launch", "Launch:3"]),
    ])
    func demoOriginAnswersMatchTheClientsDocument(document: String, tags: [String]) async throws {
        let rewriter = try await demoRewriter()
        let rewritten = try #require(rewriter.rewrite(document))
        let direct = try await SchemaTestOrigin.execute(document)
        let viaRewrite = try await SchemaTestOrigin.execute(rewritten)
        // A document that already selects `__typename` and `id` everywhere goes as it is.
        #expect((viaRewrite != direct) == (rewritten != document))
        let stripped = try #require(AnswerStripper.strip(viaRewrite))
        #expect(String(decoding: stripped.body, as: UTF8.self) == String(decoding: direct, as: UTF8.self))
        #expect(stripped.tags == tags)
    }

    @Test func mutationAnswersNameTheEntitiesTheyChanged() async throws {
        let origin = DemoOrigin(testControls: false)
        let rewriter = try await demoRewriter()
        let document = #"mutation { bookTrips(launchIds: ["12", "13"]) { success launches { site } } }"#
        let rewritten = try #require(rewriter.rewrite(document))
        let answer = try await SchemaTestOrigin.execute(rewritten, origin: origin, authorization: "ada@example.com")
        let stripped = try #require(AnswerStripper.strip(answer))
        #expect(
            String(decoding: stripped.body, as: UTF8.self).hasPrefix(#"{"data":{"bookTrips":{"success":"#))
        #expect(!String(decoding: stripped.body, as: UTF8.self).contains("__bw_"))
        #expect(stripped.tags.contains("Launch:12") && stripped.tags.contains("Launch:13"), "\(stripped.tags)")
    }

    /// The fixture schema's interface and union, with an origin answer written by hand in the order
    /// an executor gives it for the rewritten document.
    @Test func unionListAndInterfaceAnswerStripsToTheClientsAnswer() throws {
        let document = """
            { search(text: "f") { ... on Launch { id: site } ... on Rocket { name } ... on Review { body } }
              node(id: "1") { ...N } }
            fragment N on Node { ... on Launch { site } }
            """
        let rewritten = try #require(SchemaFixtures.rewriter.rewrite(document))
        #expect(rewritten.contains("... on Review { __bw_id__Int_: id  body }"))
        let origin = #"""
            {"data":{"search":[{"__bw_typename":"Launch","__bw_id":"4","id":"KSC"},
            {"__bw_typename":"Rocket","__bw_id":"f9","name":"Falcon 9"},
            {"__bw_typename":"Review","__bw_id__Int_":12,"body":"ok"}],
            "node":{"__bw_typename":"Launch","__bw_id":"1","site":"CCAFS"}}}
            """#
        let client = #"{"data":{"search":[{"id":"KSC"},{"name":"Falcon 9"},{"body":"ok"}],"node":{"site":"CCAFS"}}}"#
        let stripped = try #require(AnswerStripper.strip(Array(origin.utf8)))
        // The origin's own whitespace (the line breaks here) is kept: only the reserved members go.
        #expect(String(decoding: stripped.body, as: UTF8.self).replacingOccurrences(of: "\n", with: "") == client)
        #expect(stripped.tags == ["Launch", "Launch:1", "Launch:4", "Review", "Review:12", "Rocket", "Rocket:f9"])
    }
}
