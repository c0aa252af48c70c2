// The running process's side of a takeover: `admin.handover_socket`, a Unix socket (mode 0600)
// where a new process started with `run --takeover` asks for the listening sockets. A thread of
// its own answers, one conversation at a time, so the loops never wait on it.

import BreakwaterCore
import Foundation
import Glibc
import Logging

/// Listens on the handover socket and hands the listening sockets to a process that asks.
package final class HandoverListener: @unchecked Sendable {
    package let path: String
    private let fd: Int32
    /// The socket file made here, so that a stop removes it only while it is still this one.
    private let identity: [UInt64]?
    private let logger: Logger
    /// How long the new process may take to say hello.
    private static let helloTimeout = Duration.seconds(10)
    /// How long the new process may take from getting the sockets to being ready (it loads the
    /// cache snapshot meanwhile); the old one serves on all along and keeps serving after it.
    private static let readyTimeout = Duration.seconds(120)

    /// Makes the socket at `path`. What is there already: a socket nobody listens on (left by a
    /// dead process) is replaced; a live one is an error unless `replacingLive` (the process that
    /// took over from its owner re-makes it); anything else is an error.
    package init(path: String, replacingLive: Bool = false, logger: Logger) throws(ServerError) {
        self.path = path
        self.logger = logger
        let entry: Socket.PathEntry
        do {
            entry = try Socket.entry(at: path)
        } catch {
            throw .setup("admin.handover_socket \(path): \(error)")
        }
        switch entry {
        case .nothing: break
        case .other:
            throw .setup("admin.handover_socket \(path): exists and is not a socket; remove it or choose another path")
        case .socket:
            if !replacingLive, let probe = try? Socket.connectUnix(path, timeout: .seconds(1)) {
                Socket.close(probe)
                throw .setup(
                    "admin.handover_socket \(path): a running process listens there; start with `run --takeover \(path)` to take over from it")
            }
            unlink(path)
        }
        do {
            fd = try Socket.listenUnix(path)
        } catch {
            throw .setup("admin.handover_socket \(path): \(error)")
        }
        identity = Socket.fileIdentity(path)
    }

    /// Answers takeovers on a thread of its own until one succeeds (the socket file stays then:
    /// the new process makes its own in its place). `sockets` are the listening
    /// sockets handed over; `beforeHandover` runs just before they are sent (the cache snapshot
    /// is written then), and `handedOver` once the new process said it is ready.
    package func serve(
        sockets: InheritedListeners, beforeHandover: @escaping @Sendable () -> Void,
        handedOver: @escaping @Sendable (Int32) -> Void
    ) {
        let thread = Thread { [self] in
            while let accepted = try? Socket.acceptUnix(fd) {
                if converse(HandoverConnection(fd: accepted), sockets, beforeHandover, handedOver) { return }
            }
        }
        thread.name = "breakwater-handover"
        thread.start()
    }

    /// One takeover attempt; true when the sockets are the new process's now.
    private func converse(
        _ connection: HandoverConnection, _ sockets: InheritedListeners,
        _ beforeHandover: @Sendable () -> Void, _ handedOver: @Sendable (Int32) -> Void
    ) -> Bool {
        let peer: Socket.PeerCredentials
        do {
            peer = try Socket.peerCredentials(connection.fd)
        } catch {
            logger.warning("takeover: cannot tell who connected: \(error)")
            return false
        }
        func refuse(_ reason: String) -> Bool {
            logger.warning("takeover by pid \(peer.pid) refused: \(reason)", metadata: ["takeover.pid": "\(peer.pid)"])
            try? connection.send(.refused(reason: reason))
            return false
        }
        guard peer.uid == getuid() || peer.uid == 0 else {
            return refuse("uid \(peer.uid) may not take over a process of uid \(getuid())")
        }
        let hello: HandoverMessage
        do {
            guard let (message, _) = try connection.receive(within: Self.helloTimeout) else { return false }
            hello = message
        } catch {
            return refuse("\(error)")
        }
        let answer = HandoverProtocol.answer(
            to: hello, pid: getpid(), graphql: sockets.graphql.count, admin: sockets.admin.count)
        if case .refused(let reason) = answer { return refuse(reason) }
        beforeHandover()
        logger.notice(
            "takeover: handing over \(sockets.all.count) listening sockets to pid \(peer.pid)",
            metadata: ["takeover.pid": "\(peer.pid)"])
        do {
            try connection.send(answer, descriptors: sockets.all)
        } catch {
            logger.warning("takeover by pid \(peer.pid) failed, serving on: \(error)")
            return false
        }
        let ready: HandoverMessage?
        do {
            ready = try connection.receive(within: Self.readyTimeout)?.0
        } catch {
            logger.warning("takeover by pid \(peer.pid) failed before it was ready (\(error)); serving on")
            return false
        }
        guard case .ready = ready else {
            let what = ready.map { "it sent \($0)" } ?? "it closed the connection"
            logger.warning("takeover by pid \(peer.pid) failed before it was ready (\(what)); serving on")
            return false
        }
        handedOver(peer.pid)
        try? connection.send(.done(pid: getpid()))
        return true
    }

    /// Stops answering, and removes the socket file unless another process made one there since.
    package func close() {
        Socket.shutdownListener(fd)
        if let identity, Socket.fileIdentity(path) == identity { unlink(path) }
        Socket.close(fd)
    }
}
