// The payload of a launch and the sizes its patch image comes in.

/// The payload a launch carries; the patch image comes in two sizes.
struct Mission: Sendable, Equatable {
    var name: String?
    var smallPatchURL: String?
    var largePatchURL: String?

    struct PatchArguments: Codable, Sendable {
        var size: PatchSize?
    }

    func missionPatch(context _: LaunchesContext, arguments: PatchArguments) -> String? {
        (arguments.size ?? .large) == .small ? smallPatchURL : largePatchURL
    }
}

/// The size of a mission patch image.
enum PatchSize: String, Codable, Sendable {
    case small = "SMALL"
    case large = "LARGE"
}
