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
        while position < end {
            let byte = bytes[position]
            switch state {
            case .lineStart:
                if byte == HTTP1Bytes.cr {
                    state = .endCR
                } else if HTTP1Bytes.isTokenCharacter(byte) {
                    nameStart = position
                    state = .name
                } else if HTTP1Bytes.isWhitespace(byte) {
                    return .error(.obsoleteLineFolding)
                } else {
                    return .error(.badHeaderName)
                }
                position += 1
            case .name:
                // Runs of name bytes in a tight loop: most of a header section is names and values.
                while position < end && HTTP1Bytes.isTokenCharacter(bytes[position]) { position += 1 }
                guard position < end else { return .needMore }
                guard bytes[position] == HTTP1Bytes.colon else { return .error(.badHeaderName) }
                nameEnd = position
                state = .valueStart
                position += 1
            case .valueStart:
                if HTTP1Bytes.isWhitespace(byte) {
                    position += 1
                    continue
                }
                valueStart = position
                valueEnd = position
                state = .value
            case .value:
                while position < end {
                    let b = bytes[position]
                    if b > 0x20 && b != 0x7F {
                        position += 1
                        valueEnd = position
                    } else if HTTP1Bytes.isWhitespace(b) {
                        position += 1
                    } else {
                        break
                    }
                }
                guard position < end else { return .needMore }
                guard bytes[position] == HTTP1Bytes.cr else { return .error(.badHeaderValue) }
                state = .valueCR
                position += 1
            case .valueCR:
                guard byte == HTTP1Bytes.lf else { return .error(.badHeaderValue) }
                position += 1
                state = .lineStart
                return .field(HTTP1Field(name: nameStart..<nameEnd, value: valueStart..<valueEnd))
            case .endCR:
                guard byte == HTTP1Bytes.lf else { return .error(.badHeaderName) }
                position += 1
                state = .lineStart
                return .end
            }
        }
        return .needMore
    }
}
