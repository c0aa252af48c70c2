// Parses one HTTP/1.x response from the bytes received so far, with no I/O of its own.

/// Frames responses by Content-Length, chunked transfer coding, or end of stream (RFC 9112 section 6.3).
enum HTTPResponseParser {
    struct Parsed {
        var response: HTTPClientResponse
        /// How many bytes of the input the response (and any skipped 1xx responses) used.
        var consumed: Int
        /// Whether another request may follow on the same connection.
        var keepsConnection: Bool
    }

    /// Heads larger than this are rejected rather than buffered forever.
    static let maximumHeadSize = 1 << 20

    /// The response at the start of `bytes`, or nil when more bytes are needed.
    ///
    /// Interim 1xx responses other than 101 are skipped. With `atEndOfStream`, a body delimited by the
    /// connection's end is complete; other incomplete input still returns nil for the caller to report.
    static func parse(
        _ bytes: [UInt8], requestMethod: String, atEndOfStream: Bool
    ) throws(HTTPClientError) -> Parsed? {
        var position = 0
        while true {
            guard let headEnd = find(crlfcrlf, in: bytes, from: position) else {
                if bytes.count - position > maximumHeadSize { throw .malformed("head larger than 1 MiB") }
                return nil
            }
            var response = try parseHead(bytes[position..<headEnd])
            let bodyStart = headEnd + 4
            if (100..<200).contains(response.status) && response.status != 101 {
                position = bodyStart
                continue
            }
            guard let (body, end, delimitedByClose) = try parseBody(
                bytes, from: bodyStart, response: response, requestMethod: requestMethod,
                atEndOfStream: atEndOfStream)
            else { return nil }
            response.body = body
            return Parsed(
                response: response, consumed: end,
                keepsConnection: !delimitedByClose && keepsAlive(response))
        }
    }

    // MARK: Head

    private static func parseHead(_ head: ArraySlice<UInt8>) throws(HTTPClientError) -> HTTPClientResponse {
        var lines = split(head)
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
            let status = Int(parts[1])
        else { throw .malformed("bad status line \(statusLine.debugDescription)") }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                !line[..<colon].contains(where: \.isWhitespace)
            else { throw .malformed("bad header line \(line.debugDescription)") }
            let value = line[line.index(after: colon)...].trimmingSpacesAndTabs()
            headers.append((String(line[..<colon]), value))
        }
        return HTTPClientResponse(
            status: status, reason: parts.count > 2 ? String(parts[2]) : "", version: String(parts[0]),
            headers: headers)
    }

    private static func split(_ head: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        var start = head.startIndex
        while let end = find(crlf, in: head, from: start) {
            lines.append(String(decoding: head[start..<end], as: UTF8.self))
            start = end + 2
        }
        lines.append(String(decoding: head[start...], as: UTF8.self))
        return lines
    }

    // MARK: Body

    private static func parseBody(
        _ bytes: [UInt8], from start: Int, response: HTTPClientResponse, requestMethod: String,
        atEndOfStream: Bool
    ) throws(HTTPClientError) -> (body: [UInt8], end: Int, delimitedByClose: Bool)? {
        let status = response.status
        if requestMethod.uppercased() == "HEAD" || status < 200 || status == 204 || status == 304 {
            return ([], start, false)
        }
        if let coding = response.headers(named: "Transfer-Encoding").last {
            guard coding.lowercased().split(separator: ",").last?.trimmingSpacesAndTabs() == "chunked"
            else { return atEndOfStream ? (Array(bytes[start...]), bytes.count, true) : nil }
            return try parseChunked(bytes, from: start).map { ($0.body, $0.end, false) }
        }
        let lengths = Set(response.headers(named: "Content-Length").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingSpacesAndTabs() })
        if !lengths.isEmpty {
            guard lengths.count == 1, let length = Int(lengths.first!), length >= 0 else {
                throw .malformed("bad Content-Length \(lengths.sorted())")
            }
            guard bytes.count - start >= length else { return nil }
            return (Array(bytes[start..<start + length]), start + length, false)
        }
        return atEndOfStream ? (Array(bytes[start...]), bytes.count, true) : nil
    }

    private static func parseChunked(
        _ bytes: [UInt8], from start: Int
    ) throws(HTTPClientError) -> (body: [UInt8], end: Int)? {
        var position = start
        var body: [UInt8] = []
        while true {
            guard let lineEnd = find(crlf, in: bytes, from: position) else { return nil }
            let line = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
                .trimmingSpacesAndTabs()
            guard let size = Int(sizeText, radix: 16), size >= 0, !sizeText.hasPrefix("+") else {
                throw .malformed("bad chunk size line \(line.debugDescription)")
            }
            position = lineEnd + 2
            if size == 0 { break }
            guard bytes.count - position >= size + 2 else { return nil }
            body += bytes[position..<position + size]
            guard bytes[position + size] == 13, bytes[position + size + 1] == 10 else {
                throw .malformed("chunk of \(size) bytes not followed by CRLF")
            }
            position += size + 2
        }
        // Trailer fields, ignored, up to the empty line.
        while true {
            guard let lineEnd = find(crlf, in: bytes, from: position) else { return nil }
            defer { position = lineEnd + 2 }
            if lineEnd == position { return (body, lineEnd + 2) }
        }
    }

    private static func keepsAlive(_ response: HTTPClientResponse) -> Bool {
        if response.status == 101 { return false }
        let tokens = response.headers(named: "Connection").flatMap { $0.lowercased().split(separator: ",") }
            .map { $0.trimmingSpacesAndTabs() }
        if response.version == "HTTP/1.0" { return tokens.contains("keep-alive") }
        return !tokens.contains("close")
    }

    // MARK: Searching

    private static let crlf: [UInt8] = [13, 10]
    private static let crlfcrlf: [UInt8] = [13, 10, 13, 10]

    private static func find<Bytes: RandomAccessCollection<UInt8>>(
        _ needle: [UInt8], in bytes: Bytes, from start: Bytes.Index
    ) -> Bytes.Index? where Bytes.Index == Int {
        var index = start
        while index + needle.count <= bytes.endIndex {
            if bytes[index] == needle[0] && bytes[index..<index + needle.count].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing optional whitespace (RFC 9110 "OWS").
    fileprivate func trimmingSpacesAndTabs() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(self[first...last])
    }
}
