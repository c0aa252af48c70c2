// Serialises a request to the origin: request line, Host, the forwarded headers and
// Breakwater's own framing (a fresh Content-Length, never the client's), `Accept-Encoding: gzip`,
// then the body.

import BreakwaterCore

/// Writes HTTP/1.1 requests for the origin.
enum RequestHeadWriter {
    static func append(_ request: UpstreamRequest, host: String, to output: inout OutputQueue) {
        output.append { bytes in
            bytes.appendText(request.method)
            bytes.append(32)
            bytes.appendText(request.target)
            bytes.appendText(" HTTP/1.1\r\nHost: ")
            bytes.appendText(host)
            for field in request.headers.fields where !isFraming(field.name) {
                bytes.appendText("\r\n")
                bytes.appendText(field.name)
                bytes.appendText(": ")
                bytes.appendText(field.value)
            }
            // The origin may gzip its answer (decoded by OriginConnection before use); a
            // client's own Accept-Encoding is never passed on: the proxy reads the answer.
            bytes.appendText("\r\nAccept-Encoding: gzip")
            if !request.body.isEmpty || request.method == "POST" {
                bytes.appendText("\r\nContent-Length: ")
                bytes.appendDecimal(request.body.count)
            }
            bytes.appendText("\r\n\r\n")
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
