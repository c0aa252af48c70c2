// Serialises an answer's status line and header block straight into output bytes: no
// formatting functions, no per-header allocation (the status digits and Content-Length are
// written digit by digit). A prebuilt answer (a cache entry's) contributes its fixed lines and
// body as they were serialised when the entry was stored.

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
        let prebuilt = bodiless ? nil : response.prebuilt
        output.append { bytes in
            if status == 200 {
                bytes.appendText("HTTP/1.1 200 OK\r\n")
            } else {
                bytes.appendText("HTTP/1.1 ")
                bytes.appendDecimal(status)
                bytes.append(32)
                bytes.appendText(HTTPStatus.reason(status))
                bytes.appendText("\r\n")
            }
            for field in response.headers.fields where !isFraming(field.name) {
                bytes.appendText(field.name)
                bytes.appendText(": ")
                bytes.appendText(field.value)
                bytes.appendText("\r\n")
            }
            if let requestID = response.requestID {
                bytes.appendText("X-Request-Id: ")
                bytes.appendText(requestID)
                bytes.appendText("\r\n")
            }
            bytes.appendText("Date: ")
            bytes.appendText(date)
            if !bodiless && prebuilt == nil {
                bytes.appendText("\r\nContent-Length: ")
                bytes.appendDecimal(response.body.count)
            }
            if !keepAlive {
                bytes.appendText("\r\nConnection: close")
            } else if http10KeepAlive {
                bytes.appendText("\r\nConnection: keep-alive")
            }
            // A prebuilt block carries Content-Length and the blank line itself.
            bytes.appendText(prebuilt == nil ? "\r\n\r\n" : "\r\n")
        }
        if let prebuilt {
            if omitBody {
                output.append { $0.append(contentsOf: prebuilt.bytes[..<prebuilt.bodyStart]) }
            } else {
                output.append(body: prebuilt.bytes)
            }
        } else if !omitBody && !bodiless {
            output.append(body: response.body)
        }
    }

    /// The interim answer to `Expect: 100-continue`.
    static func appendContinue(to output: inout OutputQueue) {
        output.append { $0.appendText("HTTP/1.1 100 Continue\r\n\r\n") }
    }

    /// Fields the engine writes itself: the framing ones and `Date`.
    private static func isFraming(_ name: String) -> Bool {
        FramingFields.contains(name) || (name.utf8.count == 4 && name.equalsIgnoringASCIICase("Date"))
    }
}
