// One evhttp client connection to the origin and the request it is running.

import BreakwaterCore
import CLibevent
import COpenSSL

/// One keep-alive connection, running at most one request at a time.
final class OriginConnection {
    let connection: OpaquePointer
    /// Closed by the peer or failed: not to be used again (a TLS connection cannot reconnect).
    var isBroken = false
    private var completion: ((OriginResult) -> Void)?
    private var error: evhttp_request_error?

    init(connection: OpaquePointer) {
        self.connection = connection
        evhttp_connection_set_closecb(connection, originConnectionClosed, Unmanaged.passUnretained(self).toOpaque())
    }

    func begin(_ completion: @escaping (OriginResult) -> Void) {
        self.completion = completion
        error = nil
    }

    /// A request whose callbacks report to this connection.
    func makeRequest() -> OpaquePointer? {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let request = evhttp_request_new(originRequestDone, context) else { return nil }
        evhttp_request_set_error_cb(request, originRequestFailed)
        return request
    }

    /// Delivers the result once; later calls (a callback after a failed send) are ignored.
    func finish(_ result: OriginResult) {
        guard let completion else { return }
        self.completion = nil
        completion(result)
    }

    func free() {
        evhttp_connection_set_closecb(connection, nil, nil)
        evhttp_connection_free(connection)
    }

    fileprivate func requestDone(_ request: OpaquePointer?) {
        guard let request, evhttp_request_get_response_code(request) != 0 else {
            isBroken = true
            finish(.failure(failure(for: error)))
            return
        }
        let response = HTTPResponse(
            status: Int(evhttp_request_get_response_code(request)),
            headers: EvhttpMessage.headers(evhttp_request_get_input_headers(request)),
            body: EvhttpMessage.body(evhttp_request_get_input_buffer(request)))
        finish(.response(response))
    }

    fileprivate func requestFailed(_ error: evhttp_request_error) {
        self.error = error
        isBroken = true
    }

    private func failure(for error: evhttp_request_error?) -> OriginFailure {
        if let reason = tlsFailure() { return .unreachable("TLS with the origin failed: \(reason)") }
        return switch error {
        case EVREQ_HTTP_TIMEOUT: .timeout
        case EVREQ_HTTP_INVALID_HEADER: .malformed("the origin sent an invalid response")
        case EVREQ_HTTP_DATA_TOO_LONG: .malformed("the origin's response is too large")
        case EVREQ_HTTP_EOF: .unreachable("the origin closed the connection")
        default: .unreachable("the origin is unreachable")
        }
    }
}

extension OriginConnection {
    /// OpenSSL's reason when the connection's TLS failed (a certificate that does not verify).
    fileprivate func tlsFailure() -> String? {
        guard let bev = evhttp_connection_get_bufferevent(connection) else { return nil }
        let code = bufferevent_get_openssl_error(bev)
        guard code != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private func originRequestDone(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<OriginConnection>.fromOpaque(context).takeUnretainedValue().requestDone(request)
}

private func originRequestFailed(_ error: evhttp_request_error, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<OriginConnection>.fromOpaque(context).takeUnretainedValue().requestFailed(error)
}

private func originConnectionClosed(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let context else { return }
    Unmanaged<OriginConnection>.fromOpaque(context).takeUnretainedValue().isBroken = true
}
