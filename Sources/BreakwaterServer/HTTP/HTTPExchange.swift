// The answer side of one evhttp request: replies exactly once, on the request's own loop.

import BreakwaterCore
import CLibevent
import Synchronization

/// Replies to one evhttp request. Thread-safe: calls from other threads hop to the loop.
/// The first `respond` or `closeConnection` wins; later calls are ignored, because evhttp
/// frees the request once it is answered.
final class HTTPExchange: HTTPResponder, @unchecked Sendable {
    private let request: OpaquePointer
    let loop: EventLoop
    private let counter: Counter
    private let answered = Atomic<Bool>(false)

    init(request: OpaquePointer, loop: EventLoop, counter: Counter) {
        self.request = request
        self.loop = loop
        self.counter = counter
    }

    deinit {
        // A handler that dropped its responder without answering would leak the request
        // and hang the client: answer for it.
        if !answered.load(ordering: .acquiring) {
            let request = LoopBound(self.request), counter = self.counter
            loop.execute {
                evhttp_send_error(request.value, 500, nil)
                counter.value.subtract(1, ordering: .relaxed)
            }
        }
    }

    func respond(_ response: HTTPResponse) {
        guard claim() else { return }
        // Inline on the loop's own thread (the hit path) without allocating a closure.
        if loop.inEventLoop {
            send(response)
        } else {
            loop.enqueue { [self] in send(response) }
        }
    }

    func closeConnection() {
        guard claim() else { return }
        // Never inline: evhttp still uses the connection after the request callback returns.
        loop.enqueue { [self] in
            if let connection = evhttp_request_get_connection(request) {
                evhttp_connection_free(connection)
            } else {
                evhttp_send_error(request, 500, nil)
            }
            counter.value.subtract(1, ordering: .relaxed)
        }
    }

    private func claim() -> Bool {
        answered.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Bodies at least this large are sent by reference (a cached body is never copied); smaller
    /// ones are cheaper to copy than to reference-count.
    private static let referenceThreshold = 512

    /// Appends `bytes` to `buffer` without copying: libevent reads the array's own storage and
    /// calls back to release it once the bytes are written. The storage of a non-empty native
    /// array does not move while a reference to the array is held and nobody mutates it.
    private static func addReference(to buffer: OpaquePointer?, _ bytes: [UInt8]) {
        let owner = Unmanaged.passRetained(BodyOwner(bytes))
        let base = owner.takeUnretainedValue().bytes.withUnsafeBytes { $0.baseAddress! }
        if evbuffer_add_reference(buffer, base, bytes.count, httpExchangeReleaseBody, owner.toOpaque()) != 0 {
            owner.release()
            bytes.withUnsafeBytes { _ = evbuffer_add(buffer, $0.baseAddress, $0.count) }
        }
    }

    private func send(_ response: HTTPResponse) {
        let output = evhttp_request_get_output_headers(request)
        for (name, value) in response.headers.fields {
            evhttp_add_header(output, name, value)
        }
        evhttp_add_header(output, "Date", loop.httpDate.current)
        let body = evbuffer_new()
        if response.body.count >= Self.referenceThreshold {
            Self.addReference(to: body, response.body)
        } else if !response.body.isEmpty {
            response.body.withUnsafeBytes { evbuffer_add(body, $0.baseAddress, $0.count) }
        }
        evhttp_send_reply(request, Int32(response.status), HTTPStatus.reason(response.status), body)
        evbuffer_free(body)
        counter.value.subtract(1, ordering: .relaxed)
    }
}

/// Keeps a body's storage alive while libevent holds a reference to it.
final class BodyOwner {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
}

private func httpExchangeReleaseBody(_: UnsafeRawPointer?, _: Int, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<BodyOwner>.fromOpaque(context).release()
}
