// Keep-alive connections to the origin for one event loop: at most `maxConnections`, each
// running one request at a time (evhttp has no pipelining); further requests wait in order.

import BreakwaterCore
import CLibevent
import DequeModule

/// The origin connections of one event loop. Used only on that loop's thread.
package final class OriginPool: @unchecked Sendable {
    package let loop: EventLoop
    private let origin: OriginURL
    private let timeout: Duration
    private let maxConnections: Int
    private let tls: TLSClientContext?
    private var idle: [OriginConnection] = []
    private var open = 0
    private var waiting = Deque<(UpstreamRequest, (OriginResult) -> Void)>()

    /// Bound on a response body; a larger one is a malformed answer, not an out-of-memory.
    private static let maxResponseBytes = 64 << 20

    package init(loop: EventLoop, origin: OriginURL, timeout: Duration, maxConnections: Int, tlsVerify: Bool)
        throws(ServerError)
    {
        self.loop = loop
        self.origin = origin
        self.timeout = timeout
        self.maxConnections = max(1, maxConnections)
        self.tls = origin.scheme == .https ? try TLSClientContext(host: origin.host, verify: tlsVerify) : nil
    }

    deinit {
        for connection in idle { connection.free() }
    }

    /// Sends `request`; `completion` runs on this loop exactly once. Call on the loop's thread.
    package func send(_ request: UpstreamRequest, completion: @escaping (OriginResult) -> Void) {
        if let connection = takeIdleConnection() {
            start(request, on: connection, completion: completion)
        } else if open < maxConnections, let connection = makeConnection() {
            start(request, on: connection, completion: completion)
        } else if open < maxConnections {
            completion(.failure(.unreachable("cannot create a connection to \(origin.hostHeader)")))
        } else {
            waiting.append((request, completion))
        }
    }

    private func takeIdleConnection() -> OriginConnection? {
        while let connection = idle.popLast() {
            if !connection.isBroken { return connection }
            discard(connection)
        }
        return nil
    }

    private func makeConnection() -> OriginConnection? {
        let made: OpaquePointer?
        if let tls {
            guard let bev = tls.makeBufferEvent(base: loop.base) else { return nil }
            made = evhttp_connection_base_bufferevent_new(loop.base, nil, bev, origin.host, UInt16(origin.port))
        } else {
            made = evhttp_connection_base_new(loop.base, nil, origin.host, UInt16(origin.port))
        }
        guard let made else { return nil }
        // Retries stay 0: with retries, 2.1.12 can hang the next request (LIBEVENT.md).
        evhttp_connection_set_retries(made, 0)
        var tv = timeval(duration: timeout)
        evhttp_connection_set_timeout_tv(made, &tv)
        evhttp_connection_set_max_body_size(made, numericCast(Self.maxResponseBytes))
        open += 1
        return OriginConnection(connection: made)
    }

    private func start(
        _ request: UpstreamRequest, on connection: OriginConnection, completion: @escaping (OriginResult) -> Void
    ) {
        connection.begin { [self] result in
            completion(result)
            release(connection)
        }
        guard let outgoing = connection.makeRequest() else {
            connection.finish(.failure(.unreachable("cannot create a request")))
            return
        }
        let headers = evhttp_request_get_output_headers(outgoing)
        evhttp_add_header(headers, "Host", origin.hostHeader)
        for (name, value) in request.headers.fields { evhttp_add_header(headers, name, value) }
        if !request.body.isEmpty {
            let buffer = evhttp_request_get_output_buffer(outgoing)
            request.body.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        }
        let command = request.method == "GET" ? EVHTTP_REQ_GET : EVHTTP_REQ_POST
        if evhttp_make_request(connection.connection, outgoing, command, request.target) != 0 {
            // The request is gone already; its callback may or may not have run.
            connection.isBroken = true
            connection.finish(.failure(.unreachable("cannot send the request to \(origin.hostHeader)")))
        }
    }

    private func release(_ connection: OriginConnection) {
        if connection.isBroken {
            // Freed at the next turn: libevent is still inside this connection's callback.
            loop.later { [self] in
                discard(connection)
                startWaiting()
            }
        } else {
            idle.append(connection)
            startWaiting()
        }
    }

    private func startWaiting() {
        while !waiting.isEmpty {
            guard let connection = takeIdleConnection() ?? (open < maxConnections ? makeConnection() : nil) else {
                return
            }
            let (request, completion) = waiting.removeFirst()
            start(request, on: connection, completion: completion)
        }
    }

    private func discard(_ connection: OriginConnection) {
        connection.free()
        open -= 1
    }
}
