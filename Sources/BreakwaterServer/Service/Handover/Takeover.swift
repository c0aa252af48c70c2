// The new process's side of a takeover (`run --takeover <path>`): ask the running process at
// `path` for its listening sockets, serve them, tell it when ready.

import BreakwaterCore
import Glibc

/// Listening sockets received from a running process, and the conversation still open with it.
package final class Takeover: @unchecked Sendable {
    /// The sockets, by listener, adopted (non-blocking, close-on-exec).
    package let listeners: InheritedListeners
    /// The process that handed them over.
    package let previousPID: Int32
    package let path: String
    private let connection: HandoverConnection
    /// How long the running process may take to answer hello (it writes its cache snapshot first).
    private static let answerTimeout = Duration.seconds(30)
    /// How long it may take to acknowledge that this one is ready.
    private static let doneTimeout = Duration.seconds(10)

    private init(listeners: InheritedListeners, previousPID: Int32, path: String, connection: HandoverConnection) {
        self.listeners = listeners
        self.previousPID = previousPID
        self.path = path
        self.connection = connection
    }

    /// Asks the process listening on `path` for its listening sockets. Nothing changes for it
    /// when this throws: it never stopped accepting.
    package static func receive(from path: String) throws(TakeoverError) -> Takeover {
        let entry: Socket.PathEntry
        do {
            entry = try Socket.entry(at: path)
        } catch {
            throw TakeoverError("\(error)")
        }
        switch entry {
        case .nothing: throw TakeoverError("no handover socket at \(path)")
        case .other: throw TakeoverError("\(path) is not a socket")
        case .socket(let owner):
            guard owner == getuid() || getuid() == 0 else {
                throw TakeoverError("\(path) belongs to uid \(owner), not to this process's uid \(getuid())")
            }
        }
        let connection: HandoverConnection
        do {
            connection = HandoverConnection(fd: try Socket.connectUnix(path, timeout: answerTimeout))
        } catch {
            if error.code == ECONNREFUSED {
                throw TakeoverError("nothing listens on \(path) (left by a process that is gone)")
            }
            throw TakeoverError("cannot connect to \(path): \(error)")
        }
        let peer: Socket.PeerCredentials
        do {
            peer = try Socket.peerCredentials(connection.fd)
            try connection.send(.hello(pid: getpid(), versions: HandoverProtocol.versions))
        } catch {
            throw TakeoverError("\(path): \(error)")
        }
        guard peer.uid == getuid() || peer.uid == 0 else {
            throw TakeoverError("the process on \(path) runs as uid \(peer.uid), not as this process's uid \(getuid())")
        }
        let answer: (HandoverMessage, [Int32])?
        do {
            answer = try connection.receive(within: answerTimeout)
        } catch .timedOut {
            throw TakeoverError("pid \(peer.pid) on \(path) did not answer within \(answerTimeout)")
        } catch .protocolError(.notHandoverPeer) {
            throw TakeoverError("\(path) is not a Breakwater handover socket")
        } catch {
            throw TakeoverError("pid \(peer.pid) on \(path): \(error)")
        }
        guard let (message, descriptors) = answer else {
            throw TakeoverError("pid \(peer.pid) on \(path) closed the connection without an answer")
        }
        var closing = InheritedListeners(graphql: descriptors)
        defer { InheritedSockets.close(closing) }
        switch message {
        case .refused(let reason):
            throw TakeoverError("refused by pid \(peer.pid): \(reason)")
        case .sockets(let version, let pid, let graphql, let admin):
            guard HandoverProtocol.versions.contains(version) else {
                throw TakeoverError(
                    "pid \(pid) answered in protocol version \(version); this process speaks \(HandoverProtocol.versions)")
            }
            guard descriptors.count == graphql + admin, graphql > 0 else {
                throw TakeoverError(
                    "pid \(pid) announced \(graphql) GraphQL and \(admin) admin sockets but passed \(descriptors.count)")
            }
            let listeners = InheritedListeners(
                graphql: Array(descriptors[..<graphql]), admin: Array(descriptors[graphql...]))
            do {
                try InheritedSockets.adopt(listeners)
            } catch {
                closing = InheritedListeners()
                throw TakeoverError("\(error)")
            }
            closing = InheritedListeners()
            return Takeover(listeners: listeners, previousPID: pid, path: path, connection: connection)
        default:
            throw TakeoverError("pid \(peer.pid) answered out of turn: \(message)")
        }
    }

    /// Whether `path` names the handover socket this takeover came through.
    package func cameThrough(_ path: String) -> Bool {
        Socket.sameFile(path, self.path)
    }

    /// Tells the previous process that this one serves the sockets; it stops accepting and
    /// drains. Returns once it acknowledged (its handover socket's path is free then).
    package func confirmReady() throws(TakeoverError) {
        do {
            try connection.send(.ready(pid: getpid()))
        } catch {
            throw TakeoverError("pid \(previousPID) did not take the ready message: \(error)")
        }
        let answer: HandoverMessage?
        do {
            answer = try connection.receive(within: Self.doneTimeout)?.0
        } catch {
            throw TakeoverError("pid \(previousPID) did not acknowledge ready: \(error)")
        }
        guard case .done = answer else {
            throw TakeoverError("pid \(previousPID) did not acknowledge ready")
        }
    }
}

/// Why a takeover did not happen, in one line.
package struct TakeoverError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
