// The chunked transfer coding (RFC 9112 7.1): chunk sizes, extensions (checked, then dropped),
// data and trailers, decoded incrementally; data comes out as ranges of the caller's buffer, never copied.

/// Decodes one chunked body; positions are absolute indices of the caller's buffer.
struct HTTP1ChunkedDecoder {
    private enum State: Equatable {
        case sizeStart
        case size
        /// Chunk extensions (RFC 9112 7.1.1), one state per place in
        /// `*( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )`.
        case chunkExtension(ExtensionState)
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
                } else if state == .size && byte == HTTP1Bytes.cr {
                    state = .sizeLF
                } else if state == .size, let next = ExtensionState.afterValue.next(byte) {
                    // Whitespace may come before ";" (BWS), never alone before the line end.
                    overheadBytes += 1
                    state = .chunkExtension(next)
                } else {
                    return .error(HTTP1ParseError(.badChunk))
                }
                i += 1
            case .chunkExtension(let place):
                // Read and dropped, but checked: a proxy in front that reads a nameless extension
                // or an open quoted-string otherwise (llhttp refuses both) would see another body.
                if byte == HTTP1Bytes.cr && place.mayEndLine {
                    state = .sizeLF
                } else if let next = place.next(byte) {
                    overheadBytes += 1
                    guard overheadBytes <= Self.maxOverheadBytes else { return .error(HTTP1ParseError(.badChunk)) }
                    state = .chunkExtension(next)
                } else {
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

    /// Where a chunk extension's byte falls; `next` is the place after it, nil when the byte
    /// may not come there.
    private enum ExtensionState: Equatable {
        /// After the size or a value: BWS, then ";" (or the line end, if no whitespace came).
        case afterValue
        /// BWS after the size or a value: only ";" may end it.
        case beforeSemicolon
        /// After ";": BWS, then the name's first tchar.
        case beforeName
        case name
        /// BWS after a name: "=" or ";" must follow.
        case afterName
        /// After "=": BWS, then a token or a quoted-string.
        case beforeValue
        case token
        case quoted
        /// After a backslash inside a quoted-string.
        case quotedPair

        /// The CR ending the chunk-size line may come here (after a name or a whole value).
        var mayEndLine: Bool { self == .name || self == .token || self == .afterValue }

        func next(_ byte: UInt8) -> ExtensionState? {
            let isSpace = HTTP1Bytes.isWhitespace(byte)
            switch self {
            case .afterValue, .beforeSemicolon:
                if byte == 59 { return .beforeName }
                return isSpace ? .beforeSemicolon : nil
            case .beforeName:
                if HTTP1Bytes.isTokenCharacter(byte) { return .name }
                return isSpace ? .beforeName : nil
            case .name, .afterName:
                if byte == 59 { return .beforeName }
                if byte == 61 { return .beforeValue }
                if self == .name && HTTP1Bytes.isTokenCharacter(byte) { return .name }
                return isSpace ? .afterName : nil
            case .beforeValue:
                if byte == 34 { return .quoted }
                if HTTP1Bytes.isTokenCharacter(byte) { return .token }
                return isSpace ? .beforeValue : nil
            case .token:
                if HTTP1Bytes.isTokenCharacter(byte) { return .token }
                return ExtensionState.afterValue.next(byte)
            case .quoted:
                // qdtext: HTAB, SP, VCHAR but DQUOTE and backslash, obs-text.
                if byte == 34 { return .afterValue }
                if byte == 92 { return .quotedPair }
                return HTTP1Bytes.isFieldValueCharacter(byte) ? .quoted : nil
            case .quotedPair:
                return HTTP1Bytes.isFieldValueCharacter(byte) ? .quoted : nil
            }
        }
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
