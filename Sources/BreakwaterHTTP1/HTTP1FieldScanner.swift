// The header-section state machine shared by requests, responses and chunked trailers:
// field lines `name ":" OWS value OWS CRLF` up to the empty line, one byte class at a time.

/// Scans field lines incrementally; positions are absolute indices of the caller's buffer.
struct HTTP1FieldScanner {
    private enum State {
        case lineStart
        case name
        case valueStart
        case value
        case valueCR
        case endCR
    }

    enum Step: Equatable {
        /// The bytes up to `end` were consumed without completing a field.
        case needMore
        case field(HTTP1Field)
        /// The empty line that ends the section was consumed.
        case end
        case error(HTTP1ParseError.Reason)
    }

    private var state = State.lineStart
    private var nameStart = 0
    private var nameEnd = 0
    private var valueStart = 0
    /// One past the value's last non-whitespace byte.
    private var valueEnd = 0

    mutating func reset() { state = .lineStart }

    /// The buffer lost its first `count` bytes: moves the remembered positions with it.
    mutating func shift(by count: Int) {
        nameStart -= count
        nameEnd -= count
        valueStart -= count
        valueEnd -= count
    }

    /// Consumes `bytes[position..<end]` until a field or the section's end completes.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int, end: Int) -> Step {
        var i = position
        defer { position = i }
        while i < end {
            let byte = bytes[i]
            switch state {
            case .lineStart:
                if byte == HTTP1Bytes.cr {
                    state = .endCR
                } else if HTTP1Bytes.isTokenCharacter(byte) {
                    nameStart = i
                    state = .name
                } else if HTTP1Bytes.isWhitespace(byte) {
                    return .error(.obsoleteLineFolding)
                } else {
                    return .error(.badHeaderName)
                }
                i += 1
            case .name:
                // Runs of name bytes in a tight loop: most of a header section is names and values.
                while i < end && HTTP1Bytes.isTokenCharacter(bytes[i]) { i += 1 }
                guard i < end else { return .needMore }
                guard bytes[i] == HTTP1Bytes.colon else { return .error(.badHeaderName) }
                nameEnd = i
                state = .valueStart
                i += 1
            case .valueStart:
                if HTTP1Bytes.isWhitespace(byte) {
                    i += 1
                    continue
                }
                valueStart = i
                valueEnd = i
                state = .value
            case .value:
                while i < end {
                    let b = bytes[i]
                    if b > 0x20 && b != 0x7F {
                        i += 1
                        valueEnd = i
                    } else if HTTP1Bytes.isWhitespace(b) {
                        i += 1
                    } else {
                        break
                    }
                }
                guard i < end else { return .needMore }
                guard bytes[i] == HTTP1Bytes.cr else { return .error(.badHeaderValue) }
                state = .valueCR
                i += 1
            case .valueCR:
                guard byte == HTTP1Bytes.lf else { return .error(.badHeaderValue) }
                i += 1
                state = .lineStart
                return .field(HTTP1Field(name: nameStart..<nameEnd, value: valueStart..<valueEnd))
            case .endCR:
                guard byte == HTTP1Bytes.lf else { return .error(.badHeaderName) }
                i += 1
                state = .lineStart
                return .end
            }
        }
        return .needMore
    }
}
