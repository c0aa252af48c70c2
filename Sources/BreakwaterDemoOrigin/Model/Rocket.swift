// The vehicle of a launch.

/// The vehicle that flew a launch.
struct Rocket: Sendable, Equatable {
    var id: Identifier
    var name: String?
    var type: String?
}
