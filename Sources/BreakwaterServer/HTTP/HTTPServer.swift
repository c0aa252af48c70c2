// One listening address served by every event loop of a group: an SO_REUSEPORT listener per
// loop, all bound to the same port, each running Breakwater's own HTTP/1.1 engine; or listening
// sockets inherited from systemd or a previous process, spread over the loops.

import BreakwaterCore
import Foundation
import Synchronization

/// An HTTP/1.1 server on libevent's loops: one listener per event loop.
package final class HTTPServer: @unchecked Sendable {
    /// The port actually bound (differs from the configured one when that was 0).
    package let port: Int
    private let endpoints: [HTTPListener]
    /// Inherited sockets, closed once when the server closes (their listeners do not own them).
    private let inherited: [Int32]
    /// Requests received and not yet answered, across loops (for draining).
    private let counter: Counter

    /// Binds `address` on every loop of `group`; each loop routes its requests to the handler
    /// `makeHandler` made for it (so per-loop state, such as an origin pool, needs no lock).
    package init(
        group: EventLoopGroup, address: HostPort, limits: HTTPLimits,
        makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) {
        let socketAddress = try SocketAddress(address)
        let counter = Counter()
        let openConnections = OpenConnections()
        var endpoints: [HTTPListener] = []
        var port = address.port
        for loop in group.loops {
            // The first bind picks the port when it was 0; the others share it.
            let endpoint = try HTTPListener(
                loop: loop, address: socketAddress.withPort(port), label: address.description,
                limits: limits, handler: try makeHandler(loop), counter: counter, openConnections: openConnections)
            if port == 0 { port = SocketAddress.boundPort(of: endpoint.fileDescriptor) }
            endpoints.append(endpoint)
        }
        self.port = port
        self.endpoints = endpoints
        self.counter = counter
        self.inherited = []
    }

    /// Serves `descriptors`, listening sockets already bound (adopted with
    /// `Socket.adoptListener`), on the loops of `group`: every socket on at least one loop and
    /// every loop on at least one socket; a socket two loops share is accepted from by both.
    package init(
        group: EventLoopGroup, inherited descriptors: [Int32], label: String, limits: HTTPLimits,
        makeHandler: (EventLoop) throws(ServerError) -> any HTTPHandler
    ) throws(ServerError) {
        precondition(!descriptors.isEmpty, "an inherited server needs a socket")
        let counter = Counter()
        let openConnections = OpenConnections()
        var handlers: [any HTTPHandler] = []
        for loop in group.loops { handlers.append(try makeHandler(loop)) }
        var endpoints: [HTTPListener] = []
        for (loopIndex, descriptor) in Self.spread(descriptors.count, over: group.loops.count) {
            let loop = group.loops[loopIndex]
            endpoints.append(
                try HTTPListener(
                    loop: loop, listening: descriptors[descriptor], ownsDescriptor: false, label: label,
                    limits: limits, handler: handlers[loopIndex], counter: counter, openConnections: openConnections))
        }
        self.port = SocketAddress.boundPort(of: descriptors[0])
        self.endpoints = endpoints
        self.counter = counter
        self.inherited = descriptors
    }

    /// Pairs of (loop, socket) that cover every loop and every socket: socket i on loop i, round
    /// the smaller side again until the larger is covered.
    package static func spread(_ sockets: Int, over loops: Int) -> [(loop: Int, socket: Int)] {
        (0..<max(sockets, loops)).map { (loop: $0 % loops, socket: $0 % sockets) }
    }

    /// The listening sockets this server accepts on, each once: what a takeover hands over.
    package var listeningDescriptors: [Int32] {
        if !inherited.isEmpty { return inherited }
        return endpoints.map(\.fileDescriptor)
    }

    /// Requests received and not yet answered (handed to the handler, no answer given back yet).
    package var requestsInFlight: Int { counter.value.load(ordering: .relaxed) }

    /// Connections the drain told to finish that are not closed yet (an answer still going out,
    /// a lingering close, HTTP/2 streams open or the final GOAWAY due), plus one per loop that
    /// has not told its connections yet. With no request in flight either, the drain is over.
    package var connectionsClosing: Int {
        counter.draining.load(ordering: .relaxed) + counter.stopping.load(ordering: .relaxed)
    }

    /// Stops accepting new connections on every loop; the open ones finish what they took and
    /// close (`HTTPConnection.quiesce`). `handingOver`: another process serves these sockets
    /// from now on, so the connections queued on them are left to it.
    package func stopAccepting(handingOver: Bool = false) {
        // Until every loop has stopped and counted its draining connections, the drain waits.
        counter.stopping.add(endpoints.count, ordering: .relaxed)
        for endpoint in endpoints {
            let bound = LoopBound(endpoint), counter = self.counter
            endpoint.loop.execute {
                bound.value.stopAccepting(handingOver: handingOver)
                counter.stopping.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Applies new size and time limits to every loop (for new connections).
    package func updateLimits(_ limits: HTTPLimits) {
        for endpoint in endpoints {
            let bound = LoopBound(endpoint)
            endpoint.loop.execute { bound.value.apply(limits) }
        }
    }

    /// Closes the listeners and their connections; call after the loops stopped.
    package func close() {
        for endpoint in endpoints { endpoint.free() }
        for descriptor in inherited { Socket.close(descriptor) }
    }
}

/// Counts the requests in flight of one server.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
    /// Connections told to finish by the drain and not closed yet; each leaves when it closes.
    let draining = Atomic<Int>(0)
    /// Loops that have not yet run `stopAccepting` (and so not yet counted `draining`).
    let stopping = Atomic<Int>(0)
}

