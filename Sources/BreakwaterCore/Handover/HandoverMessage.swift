// The takeover protocol spoken over `admin.handover_socket` (docs/OPERATING.md, "Restarts and
// upgrades"). Every message is one line of text, at most `maximumLength` bytes:
//
//   breakwater-handover hello versions=1-1 pid=4242          new -> old: the versions it speaks
//   breakwater-handover sockets version=1 pid=17 graphql=2 admin=2
//                                                            old -> new, the descriptors attached
//                                                            (unix(7) SCM_RIGHTS), GraphQL's first
//   breakwater-handover ready pid=4242                       new -> old: serving them, /readyz 200
//   breakwater-handover done pid=17                          old -> new: stopped accepting, draining
//   breakwater-handover refused reason=<text to the end>     either way: no takeover, and why
//
// A peer whose first line does not start with the magic word is not a Breakwater process.

/// One message of the takeover protocol.
public enum HandoverMessage: Sendable, Equatable {
    /// The new process introduces itself with the protocol versions it speaks.
    case hello(pid: Int32, versions: ClosedRange<Int>)
    /// The running process hands over its listening sockets (attached to this message).
    case sockets(version: Int, pid: Int32, graphql: Int, admin: Int)
    /// The new process serves the sockets and is ready.
    case ready(pid: Int32)
    /// The old process stopped accepting and drains; the handover socket's path is free.
    case done(pid: Int32)
    /// The takeover does not happen.
    case refused(reason: String)

    /// The word every line starts with.
    public static let magic = "breakwater-handover"
    /// A longer line is not this protocol.
    public static let maximumLength = 512

    /// The line, newline included.
    public var encoded: [UInt8] {
        let fields: String
        switch self {
        case .hello(let pid, let versions):
            fields = "hello versions=\(versions.lowerBound)-\(versions.upperBound) pid=\(pid)"
        case .sockets(let version, let pid, let graphql, let admin):
            fields = "sockets version=\(version) pid=\(pid) graphql=\(graphql) admin=\(admin)"
        case .ready(let pid):
            fields = "ready pid=\(pid)"
        case .done(let pid):
            fields = "done pid=\(pid)"
        case .refused(let reason):
            let oneLine = reason.map { $0.isNewline ? " " : $0 }
            fields = "refused reason=\(String(oneLine.prefix(Self.maximumLength - 64)))"
        }
        return Array("\(Self.magic) \(fields)\n".utf8)
    }

    /// Reads one line (without its newline).
    public static func decode(_ line: some StringProtocol) throws(HandoverProtocolError) -> HandoverMessage {
        let line = String(line)
        guard line.utf8.count <= maximumLength, line.hasPrefix(magic + " ") else { throw .notHandoverPeer }
        let rest = line.dropFirst(magic.count + 1)
        let verb = rest.prefix { $0 != " " }
        let body = rest.dropFirst(verb.count).drop { $0 == " " }
        if verb == "refused" {
            guard body.hasPrefix("reason=") else { throw .malformed(line) }
            return .refused(reason: String(body.dropFirst("reason=".count)))
        }
        var fields: [Substring: Substring] = [:]
        for pair in body.split(separator: " ") {
            guard let equals = pair.firstIndex(of: "=") else { throw .malformed(line) }
            fields[pair[..<equals]] = pair[pair.index(after: equals)...]
        }
        func number(_ key: Substring) throws(HandoverProtocolError) -> Int {
            guard let text = fields[key], let value = Int(text), value >= 0 else { throw .malformed(line) }
            return value
        }
        func pid() throws(HandoverProtocolError) -> Int32 {
            guard let value = Int32(exactly: try number("pid")), value > 0 else { throw .malformed(line) }
            return value
        }
        switch verb {
        case "hello":
            guard let text = fields["versions"], let dash = text.firstIndex(of: "-"),
                let lower = Int(text[..<dash]), let upper = Int(text[text.index(after: dash)...]),
                lower >= 0, lower <= upper
            else { throw .malformed(line) }
            return .hello(pid: try pid(), versions: lower...upper)
        case "sockets":
            return .sockets(
                version: try number("version"), pid: try pid(), graphql: try number("graphql"),
                admin: try number("admin"))
        case "ready": return .ready(pid: try pid())
        case "done": return .done(pid: try pid())
        default: throw .malformed(line)
        }
    }
}

/// The versions this build speaks, and how two sides agree on one.
public enum HandoverProtocol {
    /// Every version this build can speak.
    public static let versions: ClosedRange<Int> = 1...1

    /// The highest version both `ours` and `theirs` speak, or nil when they share none.
    public static func agree(ours: ClosedRange<Int> = versions, theirs: ClosedRange<Int>) -> Int? {
        ours.overlaps(theirs) ? min(ours.upperBound, theirs.upperBound) : nil
    }

    /// The refusal reason when the versions do not meet.
    public static func disagreement(ours: ClosedRange<Int> = versions, theirs: ClosedRange<Int>) -> String {
        "no common protocol version (this process speaks \(text(ours)), the other \(text(theirs)))"
    }

    private static func text(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)-\(range.upperBound)"
    }

    /// What the running process answers a `hello`: the sockets' header, or a refusal.
    public static func answer(
        to hello: HandoverMessage, pid: Int32, graphql: Int, admin: Int
    ) -> HandoverMessage {
        guard case .hello(_, let theirs) = hello else {
            return .refused(reason: "expected hello first")
        }
        guard let version = agree(theirs: theirs) else {
            return .refused(reason: disagreement(theirs: theirs))
        }
        return .sockets(version: version, pid: pid, graphql: graphql, admin: admin)
    }
}

/// Why a handover line could not be read.
public enum HandoverProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer does not speak this protocol at all.
    case notHandoverPeer
    /// A line of this protocol that does not parse.
    case malformed(String)

    public var description: String {
        switch self {
        case .notHandoverPeer: "the peer does not speak Breakwater's handover protocol"
        case .malformed(let line): "malformed handover message: \(line)"
        }
    }
}

/// Collects bytes as they arrive and gives back whole lines.
public struct HandoverLineBuffer: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    /// Adds `bytes`; returns the lines they completed (without newlines).
    public mutating func append(_ bytes: some Sequence<UInt8>) throws(HandoverProtocolError) -> [String] {
        pending.append(contentsOf: bytes)
        var lines: [String] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        if pending.count > HandoverMessage.maximumLength { throw .notHandoverPeer }
        return lines
    }
}
