// Micro-benchmarks of schema-aware caching (docs/SCHEMA.md): rewriting a document once per hash,
// and stripping the reserved members from an answer, beside what a miss costs without a schema
// (the JSON parse and entity-tag walk of the storage decision), which the strip replaces: with a
// rewritten document the storage decision reads the stripper's facts and parses nothing.

import Benchmark
import BreakwaterCore
import BreakwaterServer

func schemaBenchmarks(_ configuration: Benchmark.Configuration) {
    Benchmark("DocumentRewriter.rewrite launch list (fragment, no ids)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(SchemaFixture.rewriter.rewrite(SchemaFixture.listDocument))
        }
    }

    Benchmark("DocumentRewrites.upstreamText remembered (per-hash cache)", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(SchemaFixture.rewrites.upstreamText(for: SchemaFixture.listDigest, text: SchemaFixture.listDocument))
        }
    }

    // The three below read the same 20-launch answer (about 5 KiB).
    Benchmark("Miss without schema: JSONParser.parse answer", configuration: configuration) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(OriginRelay.jsonObject(SchemaFixture.plainAnswer))
        }
    }

    Benchmark("Miss without schema: parse + EntityTags (storage decision)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(OriginRelay.jsonObject(SchemaFixture.plainAnswer)?["data"].map(EntityTags.summary(of:)))
        }
    }

    Benchmark("Miss with schema: AnswerStripper.strip (one pass: validate, cut, tags)", configuration: configuration) {
        benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(AnswerStripper.strip(SchemaFixture.rewrittenAnswer))
        }
    }
}

/// The launches schema, the tutorial's list query without ids, and its answer with and without
/// the reserved members.
enum SchemaFixture {
    static let sdl = """
        type Query { launches(pageSize: Int, after: String): LaunchConnection! launch(id: ID!): Launch me: User }
        type LaunchConnection { cursor: String! hasMore: Boolean! launches: [Launch]! }
        type Launch { id: ID! site: String mission: Mission rocket: Rocket isBooked: Boolean! }
        type Mission { name: String missionPatch(size: PatchSize): String }
        enum PatchSize { SMALL LARGE }
        type Rocket { id: ID! name: String type: String }
        type User { id: ID! email: String! trips: [Launch]! }
        """

    static let schema: KnownSchema = {
        guard let schema = try? KnownSchema(sdl: sdl) else { preconditionFailure("bad fixture SDL") }
        return schema
    }()

    static let rewriter = DocumentRewriter(schema: schema)

    /// Apollo Client's list query as a client that adds neither `__typename` nor `id` writes it.
    static let listDocument = """
        query GetLaunchList($pageSize: Int, $after: String) {
          launches(pageSize: $pageSize, after: $after) {
            cursor
            hasMore
            launches {
              ...LaunchTile
            }
          }
        }

        fragment LaunchTile on Launch {
          isBooked
          rocket {
            name
            type
          }
          mission {
            name
            missionPatch(size: SMALL)
          }
        }
        """

    static let listDigest = OpenSSLSHA256().sha256(listDocument)

    static let rewrites: DocumentRewrites = {
        let rewrites = DocumentRewrites(capacity: 16)
        rewrites.install(schema, keys: [:])
        guard rewrites.upstreamText(for: listDigest, text: listDocument) != nil else {
            preconditionFailure("the list query is not rewritten; the benchmark would measure nothing")
        }
        return rewrites
    }()

    static func answer(reserved: Bool) -> [UInt8] {
        func typename(_ name: String) -> String { reserved ? #""__bw_typename":"\#(name)","# : "" }
        func key(_ id: String) -> String { reserved ? #""__bw_id":"\#(id)","# : "" }
        let launches = (1...20).map { number in
            "{" + typename("Launch") + key(String(number)) + #""isBooked":false,"rocket":{"# + typename("Rocket")
                + key("falcon9") + #""name":"Falcon 9","type":"FT"},"mission":{"# + typename("Mission")
                + #""name":"Starlink-\#(number)","missionPatch":"https://patches.example.com/launches/\#(number)/small.png"}}"#
        }
        let text = #"{"data":{"launches":{"# + typename("LaunchConnection") + #""cursor":"MTU4MzU1NjYzMQ==","hasMore":true,"#
            + #""launches":["# + launches.joined(separator: ",") + "]}}}"
        return Array(text.utf8)
    }

    static let plainAnswer = answer(reserved: false)
    static let rewrittenAnswer: [UInt8] = {
        let rewritten = SchemaFixture.answer(reserved: true)
        guard let stripped = AnswerStripper.strip(rewritten), stripped.body == plainAnswer, stripped.tags.count == 23
        else { preconditionFailure("the stripped answer is not the plain one") }
        return rewritten
    }()
}
