// Serialises a request to the origin: request line, Host, the forwarded headers and
// Breakwater's own framing (a fresh Content-Length, never the client's), `Accept-Encoding: gzip`,
// then the body.

import BreakwaterCore

/// Writes HTTP/1.1 requests for the origin.
enum RequestHeadWriter {
    static func append(_ request: UpstreamRequest, host: String, to output: inout OutputQueue) {
        let hasLength = !request.body.isEmpty || request.method == "POST"
        // Every byte counted before writing: the head goes through a cursor in one copy.
        var bound = request.method.utf8.count + request.target.utf8.count + host.utf8.count + 96
        for field in request.headers.fields { bound += field.name.utf8.count + field.value.utf8.count + 4 }
        output.append(bound: bound) { head in
            head.put(request.method)
            head.put(" ")
            head.put(request.target)
            head.put(" HTTP/1.1\r\nHost: ")
            head.put(host)
            for field in request.headers.fields where !isFraming(field.name) {
                head.put("\r\n")
                head.put(field.name)
                head.put(": ")
                head.put(field.value)
            }
            // The origin may gzip its answer (decoded by OriginConnection before use); a
            // client's own Accept-Encoding is never passed on: the proxy reads the answer.
            head.put("\r\nAccept-Encoding: gzip")
            if hasLength {
                head.put("\r\nContent-Length: ")
                head.putDecimal(request.body.count)
            }
            head.put("\r\n\r\n")
        }
        output.append(body: request.body)
    }

    /// Fields the writer sets itself: the framing ones, `Host` and `Accept-Encoding`.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Host")
        case 15: name.equalsIgnoringASCIICase("Accept-Encoding")
        default: FramingFields.contains(name)
        }
    }
}
