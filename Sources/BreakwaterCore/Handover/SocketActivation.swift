// systemd socket activation read from the environment, as sd_listen_fds(3) describes it:
// `LISTEN_PID` must be this process, `LISTEN_FDS` counts the sockets passed from fd 3 on, and
// `LISTEN_FDNAMES` (colon-separated) names them. The server checks and adopts the descriptors.

/// The sockets systemd passed to this process, by listener.
public enum SocketActivation {
    /// The first descriptor systemd passes (`SD_LISTEN_FDS_START`).
    public static let firstDescriptor: Int32 = 3
    /// The variables to remove once read, so that children do not take them as theirs.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// Why the environment's activation variables cannot be used.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// The listeners `environment` hands to the process `processID`, or nil when it was not
    /// socket-activated (no `LISTEN_PID`, another process's, or no sockets). Named sockets go
    /// by name (`graphql`, `admin`); unnamed ones in that order.
    public static func listeners(
        environment: [String: String], processID: Int32
    ) throws(Problem) -> InheritedListeners? {
        guard let pidText = environment["LISTEN_PID"] else { return nil }
        guard let pid = Int32(pidText), pid > 0 else {
            throw Problem(description: "LISTEN_PID is not a process id: \"\(pidText)\"")
        }
        // Meant for another process (a parent that did not unset it): not ours to take.
        guard pid == processID else { return nil }
        let countText = environment["LISTEN_FDS"] ?? "0"
        guard let count = Int(countText), count >= 0, count <= 1024 else {
            throw Problem(description: "LISTEN_FDS is not a count of sockets: \"\(countText)\"")
        }
        guard count > 0 else { return nil }
        let descriptors = (0..<count).map { firstDescriptor + Int32($0) }
        let names = environment["LISTEN_FDNAMES"].map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        guard let names, names.contains(where: { ListenerName(rawValue: $0) != nil }) else {
            return try inOrder(descriptors)
        }
        guard names.count == count else {
            throw Problem(
                description: "LISTEN_FDNAMES names \(names.count) sockets but LISTEN_FDS passes \(count)")
        }
        var listeners = InheritedListeners()
        for (descriptor, name) in zip(descriptors, names) {
            switch ListenerName(rawValue: name) {
            case .graphql: listeners.graphql.append(descriptor)
            case .admin: listeners.admin.append(descriptor)
            case nil:
                let known = ListenerName.allCases.map(\.rawValue).joined(separator: " or ")
                throw Problem(description: "socket \(descriptor) is named \"\(name)\"; name each socket \(known)")
            }
        }
        return listeners
    }

    /// Unnamed sockets (no `FileDescriptorName=`): the first serves GraphQL, the second admin.
    private static func inOrder(_ descriptors: [Int32]) throws(Problem) -> InheritedListeners {
        guard descriptors.count <= 2 else {
            throw Problem(
                description: "\(descriptors.count) unnamed sockets passed; name them graphql and admin "
                    + "(FileDescriptorName=) to say which is which")
        }
        return InheritedListeners(graphql: [descriptors[0]], admin: Array(descriptors.dropFirst()))
    }
}
