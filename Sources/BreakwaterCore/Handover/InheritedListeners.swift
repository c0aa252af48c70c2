// Which inherited file descriptors serve which listener: the GraphQL proxy's (`server.listen`)
// and the admin endpoints' (`admin.listen`). Socket activation and a takeover both end here.

/// The listening sockets a process was given rather than bound itself, by listener.
public struct InheritedListeners: Sendable, Equatable {
    /// Sockets serving the GraphQL proxy; empty when it binds `server.listen` itself.
    public var graphql: [Int32]
    /// Sockets serving the admin endpoints; empty when it binds `admin.listen` itself.
    public var admin: [Int32]

    public init(graphql: [Int32] = [], admin: [Int32] = []) {
        self.graphql = graphql
        self.admin = admin
    }

    /// Every descriptor, GraphQL ones first.
    public var all: [Int32] { graphql + admin }

    public var isEmpty: Bool { graphql.isEmpty && admin.isEmpty }
}

/// The names that say which listener an inherited socket serves: systemd's
/// `FileDescriptorName=` and the handover protocol use the same two.
public enum ListenerName: String, Sendable, CaseIterable {
    case graphql
    case admin
}
