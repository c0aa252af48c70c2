// Keep-alive connections to the origin for one event loop, on Breakwater's HTTP/1.1 engine:
// at most `maxConnections`, one exchange at a time each; further requests wait in order, and
// origin.timeout bounds each exchange as a whole, the wait for a connection included.

import BreakwaterCore
import DequeModule

/// The origin connections of one event loop. Used only on that loop's thread.
package final class OriginPool: @unchecked Sendable {
    package let loop: EventLoop
    private let origin: OriginURL
    private let timeout: Duration
    private let maxConnections: Int
    private let tls: TLSClientContext?
    let hostHeader: String
    /// The start of every POST to the origin's path (`RequestHeadWriter.Prefix`).
    let requestPrefix: RequestHeadWriter.Prefix
    private var address: SocketAddress?
    private var idle: [OriginConnection] = []
    private var open: [ObjectIdentifier: OriginConnection] = [:]
    private var waiting = Deque<OriginExchange>()
    /// Exchanges whose answers were delivered, begun again by the next requests.
    private var spareExchanges: [OriginExchange] = []
    /// origin.timeout of every running exchange, on one timer (made with the pool: a lazy one
    /// was looked up twice per exchange).
    private let deadlines: ExchangeDeadlines
    /// Spare exchanges kept beyond this many are freed (a burst of waiting exchanges made them).
    private static let maxSpareExchanges = 256

    /// What the failures' texts call the server at the other end ("the origin", a CDN target).
    let peer: String

    package init(
        loop: EventLoop, origin: OriginURL, timeout: Duration, maxConnections: Int, tlsVerify: Bool,
        peer: String = "the origin"
    ) throws(ServerError) {
        self.loop = loop
        self.peer = peer
        self.origin = origin
        self.timeout = timeout
        self.maxConnections = max(1, maxConnections)
        self.hostHeader = origin.hostHeader
        requestPrefix = RequestHeadWriter.Prefix(path: origin.path, host: origin.hostHeader)
        self.tls = origin.scheme == .https ? try TLSClientContext(host: origin.host, verify: tlsVerify) : nil
        deadlines = ExchangeDeadlines(loop: loop, timeout: timeout)
        deadlines.expired = { [unowned self] exchange in exchangeTimedOut(exchange) }
    }

    deinit {
        for connection in open.values { connection.shutDown() }
    }

    /// Sends `request`; `completion` runs on this loop exactly once. Call on the loop's thread.
    package func send(_ request: UpstreamRequest, completion: @escaping (UpstreamResult) -> Void) {
        send(request, to: CompletionReceiver(completion))
    }

    /// Sends `request`; `receiver` hears the result on this loop exactly once. Call on the
    /// loop's thread.
    package func send(_ request: consuming UpstreamRequest, to receiver: any OriginReceiving) {
        let exchange = spareExchanges.popLast() ?? OriginExchange(pool: self)
        exchange.begin(request, for: receiver)
        deadlines.began(exchange)
        if let connection = idle.popLast() {
            connection.start(exchange)
        } else if open.count < maxConnections {
            startOnNewConnection(exchange)
        } else {
            waiting.append(exchange)
        }
    }

    private func startOnNewConnection(_ exchange: OriginExchange) {
        do {
            let connection = try OriginConnection(pool: self, address: try resolvedAddress(), tls: tls)
            open[ObjectIdentifier(connection)] = connection
            connection.start(exchange)
        } catch let error as SystemError {
            exchange.finish(.failure(.refused("cannot connect to \(peer) \(hostHeader): \(error.reason)")))
        } catch {
            exchange.finish(.failure(.refused("cannot connect to \(peer) \(hostHeader): \(error)")))
        }
    }

    /// The origin's address, resolved at the first connection (and again after a failure).
    private func resolvedAddress() throws -> SocketAddress {
        if let address { return address }
        let resolved = try SocketAddress(HostPort(host: origin.host, port: origin.port))
        address = resolved
        return resolved
    }

    /// An exchange whose answer was delivered and that nothing else refers to (its connection
    /// went back idle): kept for the next request.
    func recycle(_ exchange: OriginExchange) {
        if spareExchanges.count < Self.maxSpareExchanges { spareExchanges.append(exchange) }
    }

    /// `exchange` delivered its result.
    func exchangeFinished(_ exchange: OriginExchange) {
        deadlines.finished(exchange)
    }

    func connectionBecameIdle(_ connection: OriginConnection) {
        if let exchange = waiting.popFirst() {
            connection.start(exchange)
        } else {
            idle.append(connection)
        }
    }

    func connectionClosed(_ connection: OriginConnection) {
        open.removeValue(forKey: ObjectIdentifier(connection))
        idle.removeAll { $0 === connection }
        // Room for one more connection: the next waiting exchange gets it.
        if let exchange = waiting.popFirst() { startOnNewConnection(exchange) }
    }

    /// A reused connection closed before answering: the exchange goes once more, on a new one.
    func retry(_ exchange: OriginExchange) {
        if open.count < maxConnections {
            startOnNewConnection(exchange)
        } else {
            waiting.prepend(exchange)
        }
    }

    /// Nobody waits for `receiver`'s exchange any more (its clients reset their streams or closed
    /// their connections): one still waiting for a connection is dropped; one on a connection
    /// closes it, since the request may be half sent or the answer half read, and a connection
    /// in that state cannot carry another exchange.
    package func cancel(_ receiver: any OriginReceiving) {
        if let index = waiting.firstIndex(where: { $0.isFor(receiver) }) {
            let exchange = waiting.remove(at: index)
            exchange.cancel()
            recycle(exchange)
            return
        }
        for connection in open.values {
            guard let exchange = connection.carried, exchange.isFor(receiver) else { continue }
            exchange.cancel()
            connection.abandon()
            return
        }
    }

    /// origin.timeout passed for `exchange`: answered 504, its connection (if any) dropped.
    func exchangeTimedOut(_ exchange: OriginExchange) {
        if let index = waiting.firstIndex(where: { $0 === exchange }) { waiting.remove(at: index) }
        let connection = exchange.connection
        exchange.finish(.failure(.timeout))
        connection?.abandon()
    }
}

/// A completion closure heard as a receiver (the schema's introspection, CDN purges).
private final class CompletionReceiver: OriginReceiving {
    private let completion: (UpstreamResult) -> Void

    init(_ completion: @escaping (UpstreamResult) -> Void) { self.completion = completion }

    func originAnswered(_ result: UpstreamResult) { completion(result) }
}
