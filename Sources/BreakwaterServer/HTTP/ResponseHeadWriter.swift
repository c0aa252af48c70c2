// Serialises an answer's status line and header block straight into output bytes: no
// formatting functions, no per-header allocation (the status digits and Content-Length are
// written digit by digit). A prebuilt answer (a cache entry's) contributes its ETag, stored lines
// and Content-Length to the same block, and its body as it was stored.

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
        let reason = status == 200 ? "" : HTTPStatus.reason(status)
        let requestIDCount = response.stampedIDCount
        let lines = response.cacheLines
        var bound = 128 + reason.utf8.count + date.utf8.count + (requestIDCount ?? 0)
        if let prebuilt { bound += prebuilt.headBound }
        if let lines { bound += lines.byteBound }
        let fields = response.listedHeaders.fields
        // Not read through `withUnsafeBufferPointer`: a field loaded from a raw buffer is
        // retained around every call the compiler cannot see into, and measured dearer.
        for field in fields { bound += field.name.utf8.count + field.value.utf8.count + 4 }
        output.append(bound: bound) { head in
            if status == 200 {
                head.put("HTTP/1.1 200 OK\r\n")
            } else {
                head.put("HTTP/1.1 ")
                head.putDecimal(status)
                head.put(32)
                head.put(reason)
                head.put("\r\n")
            }
            if let lines { putLeading(lines, to: &head) }
            for field in fields where !isFraming(field.name) {
                head.put(field.name)
                head.put(": ")
                head.put(field.value)
                head.put("\r\n")
            }
            if let lines {
                head.put("Content-Type: ")
                head.put(lines.contentType.bytes)
                head.put("\r\n")
            }
            if requestIDCount != nil {
                head.put("X-Request-Id: ")
                head.put(stampedIDOf: response)
                head.put("\r\n")
            }
            head.put("Date: ")
            head.put(date)
            if !bodiless && prebuilt == nil {
                head.put("\r\nContent-Length: ")
                head.putDecimal(response.body.count)
            }
            if !keepAlive {
                head.put("\r\nConnection: close")
            } else if http10KeepAlive {
                head.put("\r\nConnection: keep-alive")
            }
            if let prebuilt {
                // Its ETag, stored lines, Content-Length and the blank line.
                head.put("\r\n")
                head.put(prebuilt: prebuilt)
            } else {
                head.put("\r\n\r\n")
            }
        }
        if let prebuilt {
            if !omitBody { output.append(bodyOf: prebuilt) }
        } else if !omitBody && !bodiless {
            output.append(body: response.body)
        }
    }

    /// The lines of an answer from the cache that come before its listed fields.
    @inline(__always)
    private static func putLeading(_ lines: CacheAnswerLines, to head: inout HeadOutput) {
        head.put("X-Cache: ")
        head.put(lines.cache.headerLiteral)
        if let age = lines.age {
            head.put("\r\nAge: ")
            head.putDecimal(Int(age))
        }
        head.put("\r\nCache-Control: ")
        head.put(lines.cacheControl.bytes)
        if let vary = lines.vary {
            head.put("\r\nVary: ")
            head.put(vary.bytes)
        }
        head.put("\r\n")
    }

    /// The interim answer to `Expect: 100-continue`.
    static func appendContinue(to output: inout OutputQueue) {
        let line: StaticString = "HTTP/1.1 100 Continue\r\n\r\n"
        output.append(bound: line.utf8CodeUnitCount) { $0.put(line) }
    }

    /// Fields the engine writes itself: the framing ones and `Date`. A four-letter name is
    /// compared only when it starts with a D (`Vary` is on every answer from the cache, and
    /// comparing a small string cost about 120 instructions).
    private static func isFraming(_ name: String) -> Bool {
        FramingFields.contains(name)
            || (name.utf8.count == 4 && name.utf8.first.map { $0 | 0x20 == UInt8(ascii: "d") } == true
                && name.equalsIgnoringASCIICase("Date"))
    }
}
