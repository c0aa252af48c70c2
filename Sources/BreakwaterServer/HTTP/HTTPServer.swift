// One listening address served by every event loop of a group: an SO_REUSEPORT listener and
// an evhttp per loop, all bound to the same port.

import BreakwaterCore
import CLibevent
import Foundation
import Synchronization

/// An HTTP/1.1 server on libevent's evhttp, one evhttp per event loop.
package final class HTTPServer: Sendable {
    /// The port actually bound (differs from the configured one when that was 0).
    package let port: Int
    private let endpoints: [Endpoint]
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
        var endpoints: [Endpoint] = []
        var port = address.port
        for loop in group.loops {
            // The first bind picks the port when it was 0; the others share it.
            let endpoint = try Endpoint(
                loop: loop, address: socketAddress.withPort(port), label: address.description,
                limits: limits, handler: try makeHandler(loop), counter: counter)
            if port == 0 { port = SocketAddress.boundPort(of: endpoint.fileDescriptor) }
            endpoints.append(endpoint)
        }
        self.port = port
        self.endpoints = endpoints
        self.counter = counter
    }

    /// Requests received and not yet answered.
    package var requestsInFlight: Int { counter.value.load(ordering: .relaxed) }

    /// Stops accepting new connections on every loop (existing ones finish their requests).
    package func stopAccepting() {
        for endpoint in endpoints {
            endpoint.loop.execute { endpoint.disable() }
        }
    }

    /// Applies new size and idle limits to every loop's evhttp (for new requests).
    package func updateLimits(_ limits: HTTPLimits) {
        for endpoint in endpoints {
            endpoint.loop.execute { endpoint.apply(limits) }
        }
    }

    /// Frees the listeners and evhttp objects; call after the loops stopped.
    package func close() {
        for endpoint in endpoints { endpoint.free() }
    }
}

/// Counts the requests in flight of one server.
final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// The listener and evhttp of one loop.
private final class Endpoint: @unchecked Sendable {
    let loop: EventLoop
    let handler: any HTTPHandler
    let counter: Counter
    let tls: TLSServerContext?
    private var listener: OpaquePointer?
    private var http: OpaquePointer?

    init(
        loop: EventLoop, address: SocketAddress, label: String, limits: HTTPLimits,
        handler: any HTTPHandler, counter: Counter
    ) throws(ServerError) {
        self.loop = loop
        self.handler = handler
        self.counter = counter
        self.tls = limits.tls
        let flags = UInt32(LEV_OPT_REUSEABLE | LEV_OPT_REUSEABLE_PORT | LEV_OPT_CLOSE_ON_FREE)
        let made = address.withSockaddr { sockaddr, length in
            evconnlistener_new_bind(loop.base, nil, nil, flags, 1024, sockaddr, length)
        }
        guard let made else { throw .cannotListen(label, String(cString: strerror(errno))) }
        listener = made
        let http = evhttp_new(loop.base)!
        self.http = http
        // Every method reaches the handler, which answers 405 itself (evhttp would say 501).
        let allMethods: UInt16 = 0x1FF
        evhttp_set_allowed_methods(http, allMethods)
        Self.apply(limits, to: http)
        evhttp_set_default_content_type(http, "application/json")
        evhttp_set_gencb(http, httpServerRequestCallback, Unmanaged.passUnretained(self).toOpaque())
        if tls != nil {
            evhttp_set_bevcb(http, httpServerMakeBufferEvent, Unmanaged.passUnretained(self).toOpaque())
        }
        guard evhttp_bind_listener(http, made) != nil else {
            throw .cannotListen(label, "evhttp_bind_listener failed")
        }
    }

    var fileDescriptor: Int32 { evconnlistener_get_fd(listener) }

    func apply(_ limits: HTTPLimits) {
        if let http { Self.apply(limits, to: http) }
    }

    private static func apply(_ limits: HTTPLimits, to http: OpaquePointer) {
        evhttp_set_max_headers_size(http, limits.maxHeaderBytes)
        evhttp_set_max_body_size(http, limits.maxBodyBytes)
        var idle = timeval(duration: limits.idleTimeout)
        evhttp_set_timeout_tv(http, &idle)
    }

    func disable() {
        if let listener { evconnlistener_disable(listener) }
    }

    func free() {
        // evhttp_free frees the bound listener too (LEV_OPT_CLOSE_ON_FREE closes the socket).
        if let http { evhttp_free(http) }
        http = nil
        listener = nil
    }

    func receive(_ request: OpaquePointer) {
        guard let uri = evhttp_request_get_uri(request) else {
            evhttp_send_error(request, 400, nil)
            return
        }
        let head = HTTPRequest(
            method: HTTPMethod(token: Self.methodName(evhttp_request_get_command(request))),
            target: String(cString: uri),
            headers: EvhttpMessage.headers(evhttp_request_get_input_headers(request)),
            body: EvhttpMessage.body(evhttp_request_get_input_buffer(request)),
            remoteAddress: Self.peerAddress(of: request),
            isSecure: tls != nil)
        counter.value.add(1, ordering: .relaxed)
        let exchange = HTTPExchange(request: request, loop: loop, counter: counter)
        handler.handle(head, responder: exchange)
    }

    private static func methodName(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: "GET"
        case EVHTTP_REQ_POST: "POST"
        case EVHTTP_REQ_HEAD: "HEAD"
        case EVHTTP_REQ_PUT: "PUT"
        case EVHTTP_REQ_DELETE: "DELETE"
        case EVHTTP_REQ_OPTIONS: "OPTIONS"
        case EVHTTP_REQ_TRACE: "TRACE"
        case EVHTTP_REQ_CONNECT: "CONNECT"
        case EVHTTP_REQ_PATCH: "PATCH"
        default: "UNKNOWN"
        }
    }

    private static func peerAddress(of request: OpaquePointer) -> String {
        guard let connection = evhttp_request_get_connection(request) else { return "" }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        return address.map { String(cString: $0) } ?? ""
    }
}

/// Makes each accepted connection's TLS bufferevent. Returning NULL would make evhttp use plain
/// TCP, so on failure it returns a bufferevent on a closed socket: the connection just fails.
private func httpServerMakeBufferEvent(_ base: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> OpaquePointer? {
    guard let base, let context else { return nil }
    let endpoint = Unmanaged<Endpoint>.fromOpaque(context).takeUnretainedValue()
    if let bev = endpoint.tls?.makeBufferEvent(base: base) { return bev }
    return bufferevent_socket_new(base, -1, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
}

private func httpServerRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request, let context else { return }
    Unmanaged<Endpoint>.fromOpaque(context).takeUnretainedValue().receive(request)
}
