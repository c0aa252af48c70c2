// The incremental, zero-copy HTTP/1.1 response parser for the origin side: Content-Length,
// chunked and close-delimited bodies, interim 1xx answers skipped, no body after HEAD, 204
// or 304 (RFC 9112 section 6.3).

/// Parses the responses of one origin connection, in the order the requests were sent.
///
/// Used like `HTTP1RequestParser`: call `expectResponse(toHEAD:)` before each response, then
/// `next(in:)` with the whole buffer after each read, and `finishAtClose()` when the origin
/// closed the connection.
package struct HTTP1ResponseParser {
    package typealias Event = HTTP1ParseEvent

    private enum State {
        case start
        case version(matched: Int)
        case minorVersion
        case statusSpace
        case status(digits: Int)
        case reason
        case statusLineLF
        case fields
    }

    package private(set) var head = HTTP1ResponseHead()
    private var state = State.start
    private var cursor = HTTP1MessageCursor()
    private var requestWasHEAD = false
    private let maxHeadBytes: Int
    private let maxBodyBytes: Int
    private var section = HTTP1HeaderSection(refusesDuplicateHost: false)

    package init(maxHeadBytes: Int = 64 << 10, maxBodyBytes: Int = 64 << 20) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
    }

    /// The first offset the parser may still read.
    package var retainedFrom: Int { cursor.retainedFrom }

    /// The next response answers a HEAD request (it has no body whatever its headers say).
    package mutating func expectResponse(toHEAD: Bool) { requestWasHEAD = toHEAD }

    package mutating func discard(_ count: Int) {
        guard count > 0 else { return }
        cursor.discard(count)
        head.shift(by: count)
        section.shift(by: count)
    }

    /// The origin closed the connection: the end of a close-delimited body, else a truncation.
    package mutating func finishAtClose() -> Event {
        cursor.finishAtClose()
    }

    package mutating func next(in bytes: UnsafeBufferPointer<UInt8>) -> Event {
        cursor.next(in: bytes, length: head.bodyLength, maxBodyBytes: maxBodyBytes) ?? parseHead(bytes)
    }

    private mutating func fail(_ error: HTTP1ParseError) -> Event {
        cursor.fail(error)
    }

    private mutating func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) -> Event {
        var i = cursor.position
        defer { cursor.position = i }
        var end: Int { min(bytes.count, cursor.messageStart + maxHeadBytes + 2) }
        while i < end {
            let byte = bytes[i]
            switch state {
            // The fields first: most of a head is spent here.
            case .fields:
                switch section.read(bytes, at: &i, end: end, into: &head.fields) {
                case .needMore:
                    continue
                case .end:
                    if head.status == 101 { return fail(HTTP1ParseError(.unexpectedStatus)) }
                    if head.status < 200 {
                        // An interim answer (100 Continue, 103 Early Hints): the real one follows.
                        state = .start
                        continue
                    }
                    return completeHead()
                case .error(let error):
                    return fail(error)
                }
            case .start:
                head.reset()
                section.reset()
                cursor.messageStart = i
                state = .version(matched: 0)
            case .version(let matched):
                // The usual `HTTP/1.1 200 ` (or CR) at once, to the state the bytes one by one reach.
                if matched == 0 && i + 13 <= end && HTTP1Bytes.word(bytes, at: i) & HTTP1Bytes.versionPrefixMask
                    == HTTP1Bytes.versionPrefix && HTTP1Bytes.isDigit(bytes[i + 7]) && bytes[i + 8] == HTTP1Bytes.space
                    && HTTP1Bytes.isDigit(bytes[i + 9]) && HTTP1Bytes.isDigit(bytes[i + 10])
                    && HTTP1Bytes.isDigit(bytes[i + 11]) && (bytes[i + 12] == HTTP1Bytes.space || bytes[i + 12] == HTTP1Bytes.cr)
                {
                    head.minorVersion = bytes[i + 7] == 48 ? 0 : 1
                    for offset in 9...11 { head.status = head.status * 10 + Int(bytes[i + offset] - 48) }
                    state = bytes[i + 12] == HTTP1Bytes.cr ? .statusLineLF : .reason
                    i += 13
                    continue
                }
                let literal: StaticString = "HTTP/1."
                guard byte == literal.utf8Start[matched] else { return fail(HTTP1ParseError(.badStatusLine)) }
                i += 1
                state = matched + 1 == literal.utf8CodeUnitCount ? .minorVersion : .version(matched: matched + 1)
            case .minorVersion:
                guard HTTP1Bytes.isDigit(byte) else { return fail(HTTP1ParseError(.badStatusLine)) }
                head.minorVersion = byte == 48 ? 0 : 1
                i += 1
                state = .statusSpace
            case .statusSpace:
                guard byte == HTTP1Bytes.space else { return fail(HTTP1ParseError(.badStatusLine)) }
                i += 1
                state = .status(digits: 0)
            case .status(let digits):
                if digits == 3 {
                    guard byte == HTTP1Bytes.space || byte == HTTP1Bytes.cr else {
                        return fail(HTTP1ParseError(.badStatusLine))
                    }
                    state = byte == HTTP1Bytes.cr ? .statusLineLF : .reason
                } else {
                    guard HTTP1Bytes.isDigit(byte) else { return fail(HTTP1ParseError(.badStatusLine)) }
                    head.status = head.status * 10 + Int(byte - 48)
                    state = .status(digits: digits + 1)
                }
                i += 1
            case .reason:
                while i < end && HTTP1Bytes.isFieldValueCharacter(bytes[i]) { i += 1 }
                guard i < end else { continue }
                guard bytes[i] == HTTP1Bytes.cr else { return fail(HTTP1ParseError(.badStatusLine)) }
                i += 1
                state = .statusLineLF
            case .statusLineLF:
                guard byte == HTTP1Bytes.lf, head.status >= 100 else { return fail(HTTP1ParseError(.badStatusLine)) }
                i += 1
                state = .fields
            }
        }
        if i >= cursor.messageStart + maxHeadBytes + 2 {
            return fail(HTTP1ParseError(.headTooLarge, length: i - cursor.messageStart, limit: maxHeadBytes))
        }
        return .needMore
    }

    private mutating func completeHead() -> Event {
        let closes = head.minorVersion == 1
            ? section.framing.connectionClose : !section.framing.connectionKeepAlive || section.framing.connectionClose
        head.keepAlive = !closes
        if requestWasHEAD || head.status == 204 || head.status == 304 {
            head.bodyLength = .none
        } else if section.framing.transferEncodingFields > 0 {
            // Both framings at once is how responses get smuggled: refuse it (a 502).
            if section.framing.hasContentLength { return fail(HTTP1ParseError(.contentLengthWithTransferEncoding)) }
            head.bodyLength = section.framing.isChunkedLast ? .chunked : .untilClose
        } else if let length = section.framing.contentLength {
            if length > maxBodyBytes {
                return fail(HTTP1ParseError(.bodyTooLarge, length: length, limit: maxBodyBytes))
            }
            head.bodyLength = length > 0 ? .length(length) : .none
        } else {
            head.bodyLength = .untilClose
        }
        if head.bodyLength == .untilClose { head.keepAlive = false }
        state = .start
        return cursor.headCompleted()
    }
}
