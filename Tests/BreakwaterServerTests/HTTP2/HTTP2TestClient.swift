// An HTTP/2 client on nghttp2's client session, in memory: it writes the frames a real client
// would and reads what an `HTTP2Session` answers, so the session is tested without a socket.

@testable import BreakwaterServer
import CNghttp2

/// What the client saw on one stream.
struct HTTP2TestAnswer {
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
    var ended = false
    var resetCode: UInt32?

    var status: Int? { headers.first { $0.name == ":status" }.flatMap { Int($0.value) } }

    func value(_ name: String) -> String? { headers.first { $0.name == name }?.value }
}

/// A client session whose bytes are handed over by hand.
final class HTTP2TestClient {
    private var session: OpaquePointer!
    private(set) var answers: [Int32: HTTP2TestAnswer] = [:]
    /// The error code of a GOAWAY received, if any.
    private(set) var goAwayCode: UInt32?
    /// The last stream id of each GOAWAY received, in order.
    private(set) var goAwayLastStreams: [Int32] = []
    /// Request bodies, by stream, read by the data source.
    private var bodies: [Int32: [UInt8]] = [:]
    /// Streams whose body is held back (the request stays open).
    private var held: Set<Int32> = []

    init() {
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameCount, value, valueCount, _, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let stream = frame!.pointee.hd.stream_id
            client.answers[stream, default: HTTP2TestAnswer()].headers.append(
                (String(decoding: UnsafeBufferPointer(start: name, count: nameCount), as: UTF8.self),
                 String(decoding: UnsafeBufferPointer(start: value, count: valueCount), as: UTF8.self)))
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, count, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            client.answers[stream, default: HTTP2TestAnswer()].body += UnsafeBufferPointer(start: data, count: count)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
            let frame = frame!.pointee
            if frame.hd.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                client.goAwayCode = frame.goaway.error_code
                client.goAwayLastStreams.append(frame.goaway.last_stream_id)
            }
            if frame.hd.type == UInt8(NGHTTP2_RST_STREAM.rawValue) {
                client.answers[frame.hd.stream_id, default: HTTP2TestAnswer()].resetCode = frame.rst_stream.error_code
            }
            if frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 {
                client.answers[frame.hd.stream_id, default: HTTP2TestAnswer()].ended = true
            }
            return 0
        }
        var made: OpaquePointer?
        nghttp2_session_client_new(&made, callbacks, nil)
        session = made
        nghttp2_session_set_user_data(session, Unmanaged.passUnretained(self).toOpaque())
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit { nghttp2_session_del(session) }

    /// Opens a stream with `fields` (pseudo-fields first) and `body`; returns its id.
    @discardableResult
    func request(_ fields: [(String, String)], body: [UInt8]? = nil, holdingBody: Bool = false) -> Int32 {
        // One block for every name and value; nghttp2 copies the pairs during the call.
        let total = fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count } + 1
        let block = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
        defer { block.deallocate() }
        var pairs: [nghttp2_nv] = []
        var at = 0
        for (name, value) in fields {
            let nameAt = block + at
            for byte in name.utf8 { block[at] = byte; at += 1 }
            let valueAt = block + at
            for byte in value.utf8 { block[at] = byte; at += 1 }
            pairs.append(nghttp2_nv(
                name: nameAt, value: valueAt, namelen: name.utf8.count, valuelen: value.utf8.count,
                flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
        }
        do {
            guard let body else {
                return nghttp2_submit_request(session, nil, pairs, pairs.count, nil, nil)
            }
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil)) { session, stream, buffer, length, flags, _, user in
                let client = Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
                if client.held.contains(stream) { return Int(NGHTTP2_ERR_DEFERRED.rawValue) }
                let rest = client.bodies[stream] ?? []
                let taken = min(length, rest.count)
                for index in 0..<taken { buffer![index] = rest[index] }
                client.bodies[stream] = Array(rest.dropFirst(taken))
                if client.bodies[stream]!.isEmpty { flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
                return taken
            }
            let stream = nghttp2_submit_request(session, nil, pairs, pairs.count, &provider, nil)
            bodies[stream] = body
            if holdingBody { held.insert(stream) }
            return stream
        }
    }

    func reset(_ stream: Int32) {
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, NGHTTP2_CANCEL.rawValue)
    }

    func ping() { _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) }

    /// The frames the client has to send, the preface first.
    func outgoing() -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0, let data else { break }
            bytes += UnsafeBufferPointer(start: data, count: count)
        }
        return bytes
    }

    /// Reads what the server sent.
    func incoming(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, $0.count) }
    }
}
