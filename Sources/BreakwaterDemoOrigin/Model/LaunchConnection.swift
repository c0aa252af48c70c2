// A page of the `launches` field.

/// One page of launches, newest first, and where the next page starts.
struct LaunchConnection: Sendable, Equatable {
    var cursor: String
    var hasMore: Bool
    var launches: [Launch?]
}
