// The chunked transfer coding (RFC 9112 7.1): chunk sizes, extensions, data and trailers,
// decoded incrementally; data comes out as ranges of the caller's buffer, never copied.

/// Decodes one chunked body; positions are absolute indices of the caller's buffer.
struct HTTP1ChunkedDecoder {
    private enum State {
        case sizeStart
        case size
        case extensions
        case sizeLF
        case data
        case dataCR
        case dataLF
        case trailers
    }

    enum Step: Equatable {
        case needMore
        case data(Range<Int>)
        /// The last chunk and the trailer section were consumed.
        case end
        case error(HTTP1ParseError)
    }

    private var state = State.sizeStart
    private var chunkSize = 0
    private var sizeDigits = 0
    private var hasExtension = false
    private var remaining = 0
    /// Decoded bytes so far, against `maxBytes`.
    private(set) var decodedBytes = 0
    private let maxBytes: Int
    private var trailers = HTTP1FieldScanner()
    /// Bytes of chunk extensions and trailers, which are read and dropped: bounded so that a
    /// peer cannot make the read buffer grow with them.
    private var overheadBytes = 0
    private static let maxOverheadBytes = 16 << 10

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    mutating func shift(by count: Int) { trailers.shift(by: count) }

    /// Consumes `bytes[position..<end]` until a run of data, the end, or an error.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int, end: Int) -> Step {
        var i = position
        defer { position = i }
        while i < end {
            let byte = bytes[i]
            switch state {
            case .sizeStart, .size:
                if let digit = Self.hexValue(byte) {
                    sizeDigits += 1
                    // 15 hex digits already exceed any body limit; more would overflow.
                    guard sizeDigits <= 15 else { return .error(HTTP1ParseError(.badChunk)) }
                    chunkSize = chunkSize << 4 | digit
                    state = .size
                } else if state == .size && (byte == 59 || HTTP1Bytes.isWhitespace(byte)) {
                    // Whitespace may come before ";" (BWS), never alone before the line end.
                    hasExtension = byte == 59
                    state = .extensions
                } else if state == .size && byte == HTTP1Bytes.cr {
                    state = .sizeLF
                } else {
                    return .error(HTTP1ParseError(.badChunk))
                }
                i += 1
            case .extensions:
                overheadBytes += 1
                guard overheadBytes <= Self.maxOverheadBytes else { return .error(HTTP1ParseError(.badChunk)) }
                if byte == HTTP1Bytes.cr {
                    guard hasExtension else { return .error(HTTP1ParseError(.badChunk)) }
                    state = .sizeLF
                } else if byte == 59 {
                    hasExtension = true
                } else if !hasExtension && !HTTP1Bytes.isWhitespace(byte) {
                    return .error(HTTP1ParseError(.badChunk))
                } else if !HTTP1Bytes.isFieldValueCharacter(byte) {
                    return .error(HTTP1ParseError(.badChunk))
                }
                i += 1
            case .sizeLF:
                guard byte == HTTP1Bytes.lf else { return .error(HTTP1ParseError(.badChunk)) }
                i += 1
                if decodedBytes + chunkSize > maxBytes {
                    return .error(HTTP1ParseError(.bodyTooLarge, length: decodedBytes + chunkSize, limit: maxBytes))
                }
                if chunkSize == 0 {
                    state = .trailers
                    trailers.reset()
                } else {
                    remaining = chunkSize
                    decodedBytes += chunkSize
                    state = .data
                }
                chunkSize = 0
                sizeDigits = 0
            case .data:
                let take = min(remaining, end - i)
                remaining -= take
                i += take
                if remaining == 0 { state = .dataCR }
                return .data((i - take)..<i)
            case .dataCR:
                guard byte == HTTP1Bytes.cr else { return .error(HTTP1ParseError(.badChunk)) }
                state = .dataLF
                i += 1
            case .dataLF:
                guard byte == HTTP1Bytes.lf else { return .error(HTTP1ParseError(.badChunk)) }
                state = .sizeStart
                i += 1
            case .trailers:
                // Trailer fields are checked like header fields and then dropped: nothing
                // Breakwater forwards may come from them.
                let before = i
                let step = trailers.scan(bytes, at: &i, end: min(end, i + Self.maxOverheadBytes - overheadBytes + 1))
                overheadBytes += i - before
                guard overheadBytes <= Self.maxOverheadBytes else { return .error(HTTP1ParseError(.badChunk)) }
                switch step {
                case .needMore: return .needMore
                case .field: continue
                case .end:
                    state = .sizeStart
                    decodedBytes = 0
                    overheadBytes = 0
                    return .end
                case .error(let reason): return .error(HTTP1ParseError(reason))
                }
            }
        }
        return .needMore
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 48...57: Int(byte - 48)
        case 65...70: Int(byte - 55)
        case 97...102: Int(byte - 87)
        default: nil
        }
    }
}
