// A small launches-like schema with an interface and a union, shared by the Schema tests.

import BreakwaterCore

enum SchemaFixtures {
    static let sdl = """
        interface Node { id: ID! }
        type Query {
          launches(pageSize: Int, after: String): LaunchConnection!
          launch(id: ID!): Launch
          node(id: ID!): Node
          search(text: String!): [SearchResult!]!
          me: User
        }
        type Mutation { bookTrips(launchIds: [ID]!): TripUpdateResponse! }
        type LaunchConnection { cursor: String! hasMore: Boolean! launches: [Launch]! }
        type Launch implements Node { id: ID! site: String mission: Mission rocket: Rocket isBooked: Boolean! }
        type Mission { name: String missionPatch(size: PatchSize): String }
        enum PatchSize { SMALL LARGE }
        type Rocket implements Node { id: ID! name: String type: String }
        type Review { id: Int! body: String }
        type User { id: ID! email: String! trips: [Launch]! }
        type TripUpdateResponse { success: Boolean! message: String launches: [Launch] }
        union SearchResult = Launch | Rocket | Review
        """

    static let schema: KnownSchema = {
        do {
            return try KnownSchema(sdl: sdl)
        } catch {
            fatalError("fixture SDL: \(error)")
        }
    }()

    static let rewriter = DocumentRewriter(schema: schema)
}
