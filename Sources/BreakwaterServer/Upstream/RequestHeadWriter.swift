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
        output.append(bound: bound) { cursor in
            var head = HeadOutput(position: cursor.position)
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
            cursor.skip(head.position - cursor.position)
            if hasLength {
                cursor.writeLiteral("\r\nContent-Length: ")
                cursor.writeDecimal(request.body.count)
            }
            cursor.writeLiteral("\r\n\r\n")
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

/// A write position in the head's reserved block (the cursor's) whose small copies inline:
/// `ByteCursor` lives in another module, where each two-byte write was a call of ~40 instructions.
private struct HeadOutput {
    var position: UnsafeMutablePointer<UInt8>

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        if bytes.count <= 24 {
            // Header names and values are mostly this short: bytes, not a memmove call.
            for offset in 0..<bytes.count { position[offset] = base[offset] }
        } else {
            position.update(from: base, count: bytes.count)
        }
        position += bytes.count
    }

    @inline(__always)
    mutating func put(_ literal: StaticString) {
        put(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A native string's own bytes; a small one's from the stack copy `withUTF8` makes.
    @inline(__always)
    mutating func put(_ text: String) {
        let copied: Int? = text.utf8.withContiguousStorageIfAvailable { [position] bytes in
            if let base = bytes.baseAddress { position.update(from: base, count: bytes.count) }
            return bytes.count
        }
        if let copied {
            position += copied
        } else {
            var small = text
            small.withUTF8 { put($0) }
        }
    }
}
