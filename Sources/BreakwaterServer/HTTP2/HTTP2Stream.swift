// One HTTP/2 stream's request as its HEADERS and DATA arrive, and its answer as it leaves: the
// pseudo-header fields become the method and target an HTTP/1.1 request line would carry,
// `:authority` becomes `Host`, and the cookie fields are joined into one (RFC 9113 8.2.3), so that
// every handler sees the same `HTTPRequest` on either protocol.

import BreakwaterCore
import BreakwaterHTTP2
import Glibc

/// A stream of an `HTTP2Session`; used only on its loop's thread.
final class HTTP2Stream {
    let id: Int32
    private(set) var method: String?
    private(set) var path: String?
    private var authority: String?
    private var headers = HTTPHeaders(capacity: 8)
    private var cookies: [String] = []
    private var sawHost = false
    /// The head's bytes counted as HTTP/1.1 would (`HTTP2HeadLimits.fieldBytes`).
    var headBytes = 0
    /// The `content-length` the client declared, if any.
    private(set) var declaredLength: Int?
    var headComplete = false
    /// The engine answered the stream itself: nothing more of it is read or dispatched.
    var isRefused = false
    /// Refused with 413: the rest of its body is read and dropped, within a bound.
    var refusedBody: HTTP2RefusedBody?
    /// The last frame of its answer is sent.
    var answerEnded = false
    var isDispatched = false
    /// When its HEADERS began (monotonic nanoseconds): a reset soon after is premature.
    var openedAt: Int64 = 0
    var requestBody: [UInt8] = []
    /// The answer once given (the handler's, or the engine's refusal).
    var response: HTTPResponse?
    /// The answer's body still to send; nil for a bodiless answer.
    var body: HTTP2AnswerBody?

    init(id: Int32) { self.id = id }

    var isHead: Bool { method == "HEAD" }

    /// One decoded field of the head (nghttp2 has checked names and values, RFC 9113 8.2).
    func add(name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // Names arrive lower-cased (nghttp2 refuses others): told apart by length and bytes,
        // without making a string of a pseudo-field's name.
        if name.first == UInt8(ascii: ":") {
            switch name.count {
            case 5 where Self.equals(name, ":path"): path = String(decoding: value, as: UTF8.self)
            case 7 where Self.equals(name, ":method"): method = FieldText.string(value)
            case 10 where Self.equals(name, ":authority"): authority = String(decoding: value, as: UTF8.self)
            default: break  // :scheme; nghttp2 refuses unknown pseudo-fields
            }
            return
        }
        switch name.count {
        case 6 where Self.equals(name, "cookie"):
            cookies.append(String(decoding: value, as: UTF8.self))
            return
        case 4 where Self.equals(name, "host"):
            sawHost = true
        case 14 where Self.equals(name, "content-length"):
            declaredLength = Int(String(decoding: value, as: UTF8.self))
        default:
            break
        }
        headers.add(FieldText.string(name), FieldText.string(value))
    }

    @inline(__always)
    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount && memcmp(bytes.baseAddress!, literal.utf8Start, bytes.count) == 0
    }

    /// The request as the handlers take it; made once, when the request is complete.
    func request(remoteAddress: String, isSecure: Bool) -> HTTPRequest {
        // Taken, not copied: a copy shared the fields' storage, and adding `host` to it copied
        // them all into a new array.
        var headers = HTTPHeaders()
        swap(&headers, &self.headers)
        if !sawHost, let authority { headers.add("host", authority) }
        if !cookies.isEmpty { headers.add("cookie", cookies.joined(separator: "; ")) }
        return HTTPRequest(
            method: HTTPMethod(token: method ?? "GET"), target: path ?? "/", headers: headers, body: requestBody,
            remoteAddress: remoteAddress, isSecure: isSecure, version: .http2)
    }
}

/// The body of an answer on its way out in DATA frames: a cached answer's bytes where the entry
/// holds them, or the response's own.
final class HTTP2AnswerBody {
    private let response: HTTPResponse
    private var sent = 0
    let count: Int

    init(_ response: HTTPResponse) {
        self.response = response
        count = response.bodyCount
    }

    var remaining: Int { count - sent }

    /// Copies at most `length` of the next bytes to `destination`; returns how many.
    func copy(into destination: UnsafeMutablePointer<UInt8>, length: Int) -> Int {
        let taken = min(length, remaining)
        guard taken > 0 else { return 0 }
        let from = sent
        if let prebuilt = response.prebuilt {
            prebuilt.withBody { destination.update(from: $0.baseAddress! + from, count: taken) }
        } else {
            response.body.withUnsafeBufferPointer { destination.update(from: $0.baseAddress! + from, count: taken) }
        }
        sent += taken
        return taken
    }
}
