// Serialises a request to the origin: request line, Host, the forwarded headers and
// Breakwater's own framing (a fresh Content-Length, never the client's), then the body.

import BreakwaterCore

/// Writes HTTP/1.1 requests for the origin.
enum RequestHeadWriter {
    static func append(_ request: UpstreamRequest, host: String, to output: inout OutputQueue) {
        output.append { bytes in
            bytes.append(contentsOf: request.method.utf8)
            bytes.append(32)
            bytes.append(contentsOf: request.target.utf8)
            bytes.append(contentsOf: " HTTP/1.1\r\nHost: ".utf8)
            bytes.append(contentsOf: host.utf8)
            for field in request.headers.fields where !isFraming(field.name) {
                bytes.append(contentsOf: "\r\n".utf8)
                bytes.append(contentsOf: field.name.utf8)
                bytes.append(contentsOf: ": ".utf8)
                bytes.append(contentsOf: field.value.utf8)
            }
            if !request.body.isEmpty || request.method == "POST" {
                bytes.append(contentsOf: "\r\nContent-Length: ".utf8)
                ResponseHeadWriter.appendDecimal(request.body.count, to: &bytes)
            }
            bytes.append(contentsOf: "\r\n\r\n".utf8)
        }
        output.append(body: request.body)
    }

    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 4: name.equalsIgnoringASCIICase("Host")
        case 10: name.equalsIgnoringASCIICase("Connection")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        default: false
        }
    }
}
