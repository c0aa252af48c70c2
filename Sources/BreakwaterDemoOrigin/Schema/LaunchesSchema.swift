// The launches schema of the Apollo tutorial, declared with Graphiti.

import Graphiti

/// Builds the schema once; it is immutable and shared by every request.
enum LaunchesSchema {
    static func make() throws -> Schema<LaunchesResolver, LaunchesContext> {
        try Schema<LaunchesResolver, LaunchesContext> {
            Scalar(
                Identifier.self, as: "ID", serialize: Identifier.serialize, parseValue: Identifier.parseValue,
                parseLiteral: Identifier.parseLiteral
            )
            Enum(PatchSize.self) {
                Value(.small)
                Value(.large)
            }
            Type(Rocket.self) {
                Field("id", at: \.id)
                Field("name", at: \.name)
                Field("type", at: \.type)
            }
            Type(Mission.self) {
                Field("name", at: \.name)
                Field("missionPatch", at: Mission.missionPatch) {
                    Argument("size", at: \.size).defaultValue(.large)
                }
            }
            Type(Launch.self) {
                Field("id", at: \.id)
                Field("site", at: \.site)
                Field("mission", at: \.mission)
                Field("rocket", at: \.rocket)
                Field("isBooked", at: Launch.isBooked)
            }
            Type(LaunchConnection.self) {
                Field("cursor", at: \.cursor)
                Field("hasMore", at: \.hasMore)
                Field("launches", at: \.launches)
            }
            Type(User.self) {
                Field("id", at: \.id)
                Field("email", at: \.email)
                Field("trips", at: User.trips)
            }
            Type(TripUpdateResponse.self) {
                Field("success", at: \.success)
                Field("message", at: \.message)
                Field("launches", at: \.launches)
            }
            Query {
                Field("launches", at: LaunchesResolver.launches) {
                    Argument("pageSize", at: \.pageSize).defaultValue(20)
                    Argument("after", at: \.after)
                }
                Field("launch", at: LaunchesResolver.launch) {
                    Argument("id", at: \.id)
                }
                Field("me", at: LaunchesResolver.me)
                Field("slow", at: LaunchesResolver.slow) {
                    Argument("ms", at: \.ms)
                }
                Field("boom", at: LaunchesResolver.boom)
            }
            Mutation {
                Field("bookTrips", at: LaunchesResolver.bookTrips) {
                    Argument("launchIds", at: \.launchIds)
                }
                Field("cancelTrip", at: LaunchesResolver.cancelTrip) {
                    Argument("launchId", at: \.launchId)
                }
                Field("login", at: LaunchesResolver.login) {
                    Argument("email", at: \.email)
                }
            }
        }
    }
}
