// Serialises an answer's status line and header block straight into output bytes: no
// formatting functions, no per-header allocation (the status digits and Content-Length are
// written digit by digit).

import BreakwaterCore

/// Writes HTTP/1.1 response heads.
enum ResponseHeadWriter {
    /// Appends the head of `response` (and its body unless `omitBody`) to `output`.
    static func append(
        _ response: HTTPResponse, to output: inout OutputQueue, date: String, keepAlive: Bool,
        http10KeepAlive: Bool, omitBody: Bool
    ) {
        let status = response.status
        // 1xx, 204 and 304 carry no body and no Content-Length (RFC 9110 8.6).
        let bodiless = status < 200 || status == 204 || status == 304
        output.append { bytes in
            bytes.append(contentsOf: "HTTP/1.1 ".utf8)
            appendDecimal(status, to: &bytes)
            bytes.append(32)
            bytes.append(contentsOf: HTTPStatus.reason(status).utf8)
            bytes.append(contentsOf: "\r\n".utf8)
            for field in response.headers.fields where !isFraming(field.name) {
                bytes.append(contentsOf: field.name.utf8)
                bytes.append(contentsOf: ": ".utf8)
                bytes.append(contentsOf: field.value.utf8)
                bytes.append(contentsOf: "\r\n".utf8)
            }
            bytes.append(contentsOf: "Date: ".utf8)
            bytes.append(contentsOf: date.utf8)
            if !bodiless {
                bytes.append(contentsOf: "\r\nContent-Length: ".utf8)
                appendDecimal(response.body.count, to: &bytes)
            }
            if !keepAlive {
                bytes.append(contentsOf: "\r\nConnection: close".utf8)
            } else if http10KeepAlive {
                bytes.append(contentsOf: "\r\nConnection: keep-alive".utf8)
            }
            bytes.append(contentsOf: "\r\n\r\n".utf8)
        }
        if !omitBody && !bodiless { output.append(body: response.body) }
    }

    /// The interim answer to `Expect: 100-continue`.
    static func appendContinue(to output: inout OutputQueue) {
        output.append { $0.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8) }
    }

    /// Fields the engine writes itself: a handler's would contradict the real framing.
    private static func isFraming(_ name: String) -> Bool {
        switch name.utf8.count {
        case 10: name.equalsIgnoringASCIICase("Connection")
        case 14: name.equalsIgnoringASCIICase("Content-Length")
        case 17: name.equalsIgnoringASCIICase("Transfer-Encoding")
        case 4: name.equalsIgnoringASCIICase("Date")
        default: false
        }
    }

    /// Appends the decimal digits of a non-negative `value`.
    static func appendDecimal(_ value: Int, to bytes: inout [UInt8]) {
        if value < 10 {
            bytes.append(UInt8(48 + value))
            return
        }
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(48 + rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
