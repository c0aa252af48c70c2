// The header fields of a request to the origin as they go on the wire (README "The origin side").

/// Header fields written once, as bytes, where the fetch is planned: each field is
/// `\r\nName: value`, so the request's head copies the whole block in one piece after its
/// `Host` line, instead of walking name and value strings (a reference count pair each) on
/// every send. Read back as `HTTPHeaders` only off the hot path (a log line, a freshness
/// sample's changes, tests).
package struct UpstreamHeaderBlock: Sendable, Equatable {
    package private(set) var bytes: [UInt8]

    /// Fields already written, each `\r\nName: value`.
    package init(bytes: [UInt8]) { self.bytes = bytes }

    package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    package init(_ headers: HTTPHeaders) {
        self.init(capacity: headers.fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 })
        for field in headers.fields { add(field.name, field.value) }
    }

    /// Appends `name: value` as one field.
    package mutating func add(_ name: String, _ value: String) {
        put("\r\n")
        put(name)
        put(": ")
        put(value)
    }

    // Copies from contiguous bytes: `append(contentsOf: text.utf8)` went through the generic
    // sequence copy.
    @inline(__always)
    private mutating func put(_ text: String) {
        text.withUTF8Bytes { bytes.append(contentsOf: $0) }
    }

    /// The fields, in order.
    package var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        var index = bytes.startIndex
        // Every field starts with CR LF; names hold no colon, values no CR or LF.
        while index + 2 <= bytes.endIndex {
            let start = index + 2
            let end = Self.lineEnd(in: bytes, from: start)
            let line = bytes[start..<end]
            if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
                let valueStart = colon + 1 < end && bytes[colon + 1] == UInt8(ascii: " ") ? colon + 2 : colon + 1
                headers.add(
                    String(decoding: bytes[start..<colon], as: UTF8.self),
                    String(decoding: bytes[valueStart..<end], as: UTF8.self))
            }
            index = end
        }
        return headers
    }

    /// The first value of `name`, or nil.
    package subscript(name: String) -> String? { headers[name] }

    /// Every value of `name`, in order.
    package func values(of name: String) -> [String] { headers.values(of: name) }

    /// The number of bytes the block holds.
    package var count: Int { bytes.count }

    private static func lineEnd(in bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index + 1 < bytes.endIndex {
            if bytes[index] == UInt8(ascii: "\r") && bytes[index + 1] == UInt8(ascii: "\n") { return index }
            index += 1
        }
        return bytes.endIndex
    }
}
