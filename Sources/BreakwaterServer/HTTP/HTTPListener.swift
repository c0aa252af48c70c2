// One loop's share of a listening address: its SO_REUSEPORT socket (or an inherited socket it may
// share with other loops), the accept event, the connections accepted on it, and the pause when
// file descriptors run out.

import BreakwaterCore
import BreakwaterHTTP1
import Foundation
import Logging
import Synchronization

/// The listening socket and open connections of one loop; used on that loop's thread.
final class HTTPListener: IOEventHandler {
    let loop: EventLoop
    let handler: any HTTPHandler
    let counter: Counter
    private(set) var limits: HTTPLimits {
        didSet {
            connectionConfiguration = Self.configuration(limits)
            http2Settings = limits.http2Settings
        }
    }
    /// The state machine's bounds and the limits' timeouts in nanoseconds, converted once
    /// rather than per connection.
    private(set) var connectionConfiguration: HTTP1ServerConnection.Configuration
    /// What an HTTP/2 connection runs with; nil when HTTP/2 is off.
    private(set) var http2Settings: HTTP2Settings?
    let fileDescriptor: Int32
    /// False for an inherited socket: the server closes it once, after every loop let go.
    private let ownsDescriptor: Bool
    private let openConnections: OpenConnections
    private let label: String
    private var acceptEvent: IOEvent?
    private var resumeTimer: IOEvent?
    private var connections: [ObjectIdentifier: HTTPConnection] = [:]
    private var isAccepting = true
    private static let logger = Logger(label: "breakwater.http")
    /// How long accepting pauses when the process is out of file descriptors.
    private static let exhaustionPause = Duration.milliseconds(250)

    /// Binds `address` (SO_REUSEPORT) for this loop alone.
    convenience init(
        loop: EventLoop, address: SocketAddress, label: String, limits: HTTPLimits, handler: any HTTPHandler,
        counter: Counter, openConnections: OpenConnections
    ) throws(ServerError) {
        let fileDescriptor: Int32
        do {
            fileDescriptor = try Socket.listen(address)
        } catch {
            throw .cannotListen(label, error.description)
        }
        try self.init(
            loop: loop, listening: fileDescriptor, ownsDescriptor: true, label: label, limits: limits,
            handler: handler, counter: counter, openConnections: openConnections)
    }

    /// Accepts on `fileDescriptor`, a listening non-blocking socket; other loops and processes
    /// may accept on it too (a non-blocking accept that finds nothing is normal).
    init(
        loop: EventLoop, listening fileDescriptor: Int32, ownsDescriptor: Bool, label: String, limits: HTTPLimits,
        handler: any HTTPHandler, counter: Counter, openConnections: OpenConnections
    ) throws(ServerError) {
        self.loop = loop
        self.handler = handler
        self.counter = counter
        self.limits = limits
        self.connectionConfiguration = Self.configuration(limits)
        self.http2Settings = limits.http2Settings
        self.label = label
        self.openConnections = openConnections
        self.fileDescriptor = fileDescriptor
        self.ownsDescriptor = ownsDescriptor
        do {
            acceptEvent = try IOEvent(loop: loop, fd: fileDescriptor, kind: .read, handler: self)
            resumeTimer = try IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
        } catch {
            if ownsDescriptor { Socket.close(fileDescriptor) }
            throw .cannotListen(label, error.description)
        }
        acceptEvent?.add()
    }

    private static func configuration(_ limits: HTTPLimits) -> HTTP1ServerConnection.Configuration {
        HTTP1ServerConnection.Configuration(
            idleTimeout: MonotonicTime.nanoseconds(limits.idleTimeout),
            headerTimeout: MonotonicTime.nanoseconds(limits.headerTimeout),
            bodyTimeout: MonotonicTime.nanoseconds(limits.bodyTimeout))
    }

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        if event.kind == .timer {
            guard isAccepting else { return }
            acceptEvent?.add()
            acceptConnections()
        } else {
            acceptConnections()
        }
    }

    /// Accepts what is waiting, a bounded number per turn so other loops' work goes on. Returns
    /// whether more may be waiting.
    @discardableResult
    private func acceptConnections() -> Bool {
        for _ in 0..<64 {
            let accepted: Socket.Accepted
            do {
                guard let next = try Socket.accept(fileDescriptor) else { return false }
                accepted = next
            } catch {
                if error.isDescriptorExhaustion { pauseAccepting(error) } else {
                    Self.logger.warning("accept failed on \(label): \(error)")
                }
                return false
            }
            let fd = accepted.fd
            guard openConnections.reserve(limit: limits.maxConnections) else {
                // Over max_connections: refused at once, the client sees the connection close.
                Socket.close(fd)
                continue
            }
            do {
                let connection = try HTTPConnection(fd: fd, peer: accepted.peer, listener: self, tls: limits.tls)
                connections[ObjectIdentifier(connection)] = connection
                connection.readWhatArrived()
            } catch {
                openConnections.release()
                Socket.close(fd)
                Self.logger.warning("cannot serve a connection on \(label): \(error)")
            }
        }
        return true
    }

    /// Out of file descriptors: stop accepting for a moment (no busy loop on a listener that
    /// stays readable), and log once per pause.
    private func pauseAccepting(_ error: SystemError) {
        acceptEvent?.remove()
        Self.logger.warning(
            "out of file descriptors: accepting paused",
            metadata: [
                "listener": "\(label)", "error": "\(error)",
                "pause_ms": .stringConvertible(
                    Int(Self.exhaustionPause.components.seconds * 1000
                        + Self.exhaustionPause.components.attoseconds / 1_000_000_000_000_000)),
            ])
        resumeTimer?.add(timeout: Self.exhaustionPause)
    }

    func connectionClosed(_ connection: HTTPConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil { openConnections.release() }
    }

    func apply(_ limits: HTTPLimits) { self.limits = limits }

    /// The drain begins (docs/OPERATING.md, "Stopping: the drain"): when this process alone holds the
    /// listening socket, the connections the kernel completed are taken (their clients already
    /// sent, or are sending, a request) and the socket closes, so that a new connection is
    /// refused rather than left in a queue nobody reads. A socket that lives on elsewhere (handed
    /// to a new process, or held by systemd) keeps its queue for the process that serves it next.
    /// Every open connection finishes what it took and closes: HTTP/1.1 answers the request
    /// under way with `Connection: close`, HTTP/2 says GOAWAY.
    func stopAccepting(handingOver: Bool) {
        guard isAccepting else { return }
        if ownsDescriptor && !handingOver { while acceptConnections() {} }
        closeAccepting()
        if ownsDescriptor { Socket.close(fileDescriptor) }
        for connection in Array(connections.values) { connection.quiesce() }
    }

    private func closeAccepting() {
        isAccepting = false
        acceptEvent?.remove()
        resumeTimer?.remove()
    }

    /// Closes the listener and every connection; after the loop stopped.
    func free() {
        let listens = isAccepting
        closeAccepting()
        acceptEvent?.free()
        resumeTimer?.free()
        acceptEvent = nil
        resumeTimer = nil
        for connection in Array(connections.values) { connection.close() }
        connections.removeAll()
        if listens && ownsDescriptor { Socket.close(fileDescriptor) }
    }
}

/// Open connections of one server across its loops, against `max_connections`.
final class OpenConnections: Sendable {
    private let count = Atomic<Int>(0)

    func reserve(limit: Int) -> Bool {
        if count.add(1, ordering: .relaxed).newValue <= limit { return true }
        count.subtract(1, ordering: .relaxed)
        return false
    }

    func release() { count.subtract(1, ordering: .relaxed) }
}
