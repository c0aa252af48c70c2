// Serialises a request to the origin: request line, Host, the forwarded headers and
// Breakwater's own framing (a fresh Content-Length, never the client's), `Accept-Encoding: gzip`,
// then the body.

import BreakwaterCore

/// Writes HTTP/1.1 requests for the origin.
enum RequestHeadWriter {
    /// The bytes every POST to one origin starts with, `POST <path> HTTP/1.1\r\nHost: <host>`,
    /// built once per pool: a POST to the configured path (every GraphQL POST) copies them in one
    /// piece instead of writing its method, target and host one by one. Kept outside Swift's
    /// reference counting, so that the writing closure captures a plain pointer.
    final class Prefix {
        let target: String
        let bytes: UnsafeBufferPointer<UInt8>

        init(path: String, host: String) {
            target = path
            let text = Array("POST \(path) HTTP/1.1\r\nHost: \(host)".utf8)
            let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.count)
            _ = storage.initialize(from: text)
            bytes = UnsafeBufferPointer(storage)
        }

        deinit { bytes.deallocate() }
    }

    static func append(_ request: UpstreamRequest, host: String, prefix: Prefix, to output: inout OutputQueue) {
        let isPOST = request.method == "POST"
        let hasLength = isPOST || !request.body.isEmpty
        let prefixBytes: UnsafeBufferPointer<UInt8>? = isPOST && request.target == prefix.target ? prefix.bytes : nil
        // Every byte counted before writing: the head goes through a cursor in one copy.
        var bound = request.method.utf8.count + request.target.utf8.count + host.utf8.count + request.written.count + 96
        for field in request.headers.fields { bound += field.name.utf8.count + field.value.utf8.count + 4 }
        output.append(bound: bound) { head in
            if let prefixBytes {
                head.put(prefixBytes)
            } else {
                head.put(request.method)
                head.put(" ")
                head.put(request.target)
                head.put(" HTTP/1.1\r\nHost: ")
                head.put(host)
            }
            for field in request.headers.fields where !isFraming(field.name) {
                head.put("\r\n")
                head.put(field.name)
                head.put(": ")
                head.put(field.value)
            }
            request.written.withUnsafeBufferPointer { head.put($0) }
            // The origin may gzip its answer (decoded by OriginConnection before use); a
            // client's own Accept-Encoding is never passed on: the proxy reads the answer.
            if hasLength {
                head.put("\r\nAccept-Encoding: gzip\r\nContent-Length: ")
                head.putDecimal(request.body.count)
                head.put("\r\n\r\n")
            } else {
                head.put("\r\nAccept-Encoding: gzip\r\n\r\n")
            }
        }
        output.append(body: request.body)
    }

    /// Fields the writer sets itself: the framing ones, `Host` and `Accept-Encoding`. The
    /// proxy's own `X-Forwarded-For` and `X-Forwarded-Proto` (on every request, of the lengths of
    /// `Accept-Encoding` and `Transfer-Encoding`) are told apart as whole literals first: one
    /// word compared instead of a case-blind comparison.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Host")
        case 15: name != "X-Forwarded-For" && name.equalsIgnoringASCIICase("Accept-Encoding")
        case 17: name != "X-Forwarded-Proto" && FramingFields.contains(name)
        default: FramingFields.contains(name)
        }
    }
}
