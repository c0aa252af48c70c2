// The incremental, zero-copy HTTP/1.1 request parser (RFC 9112, with the framing verdicts README's
// "The HTTP/1.1 engine" lists): explicit states as in nginx's ngx_http_parse.c, resumable at any
// byte, reporting offsets into the caller's read buffer instead of copying.

/// Parses the requests of one connection, one after the other (pipelining).
///
/// The caller owns a buffer of received bytes and calls `next(in:)` with all of it after each
/// read; the parser remembers how far it got. Offsets in `head` and in `.body` events index
/// that buffer. Bytes before `retainedFrom` are no longer needed: the caller may drop them and
/// then calls `discard(_:)` with their count. `head` is valid from `.head` until the next
/// call after `.end`.
///
/// A class, not a struct: its owner (a connection object) reads `isIdle`, `head` and the
/// offsets between calls, and each such read of a struct from another module copied the whole
/// parser (retaining every array it holds), six times per request.
package final class HTTP1RequestParser {
    package typealias Event = HTTP1ParseEvent

    private enum State {
        case start
        case method
        case target
        case version(matched: Int)
        case minorVersion
        case requestLineCR
        case requestLineLF
        case fields
    }

    package var limits: HTTP1RequestLimits
    package private(set) var head = HTTP1RequestHead()
    private var state = State.start
    private var cursor = HTTP1MessageCursor()
    private var section = HTTP1HeaderSection(refusesDuplicateHost: true)

    package init(limits: HTTP1RequestLimits = HTTP1RequestLimits()) { self.limits = limits }

    /// The first offset the parser may still read (head fields point at or after it).
    package var retainedFrom: Int { cursor.retainedFrom }

    /// Whether no byte of a request has arrived since the last one ended (idle keep-alive).
    package var isIdle: Bool {
        guard cursor.isReadingHead, case .start = state else { return false }
        return true
    }

    /// Whether the head is still incomplete (the header timeout applies).
    package var isReadingHead: Bool { cursor.isReadingHead }

    /// The buffer lost its first `count` bytes (all before `retainedFrom`).
    package func discard(_ count: Int) {
        guard count > 0 else { return }
        cursor.discard(count)
        head.shift(by: count)
        section.shift(by: count)
    }

    /// Parses on from where the last call stopped, over `bytes` (the whole buffer).
    package func next(in bytes: UnsafeBufferPointer<UInt8>) -> Event {
        cursor.next(in: bytes, length: head.bodyLength, maxBodyBytes: limits.maxBodyBytes) ?? parseHead(bytes)
    }

    private func fail(_ error: HTTP1ParseError) -> Event {
        cursor.fail(error)
    }

    private func fail(_ reason: HTTP1ParseError.Reason) -> Event { fail(HTTP1ParseError(reason)) }

    private func parseHead(_ bytes: UnsafeBufferPointer<UInt8>) -> Event {
        var i = cursor.position
        defer { cursor.position = i }
        // The head may not run past this offset (the final empty line included).
        var end: Int { min(bytes.count, cursor.messageStart + limits.maxHeadBytes + 2) }
        while i < end {
            let byte = bytes[i]
            switch state {
            case .start:
                // Empty lines before a request line are ignored (RFC 9112 2.2).
                if byte == HTTP1Bytes.cr || byte == HTTP1Bytes.lf {
                    i += 1
                    cursor.messageStart = i
                    continue
                }
                head.reset()
                section.reset()
                cursor.messageStart = i
                guard HTTP1Bytes.isTokenCharacter(byte) else { return fail(.badRequestLine) }
                state = .method
                i += 1
            case .method:
                while i < end && HTTP1Bytes.isTokenCharacter(bytes[i]) { i += 1 }
                guard i < end else { continue }
                guard bytes[i] == HTTP1Bytes.space else { return fail(.badRequestLine) }
                head.method = cursor.messageStart..<i
                i += 1
                head.target = i..<i
                state = .target
            case .target:
                let start = head.target.lowerBound
                let stop = min(end, start + limits.maxTargetBytes + 1)
                i = HTTP1Bytes.skipTargetCharacters(bytes, from: i, to: stop)
                if i - start > limits.maxTargetBytes {
                    return fail(HTTP1ParseError(.targetTooLong, length: i - start, limit: limits.maxTargetBytes))
                }
                guard i < end else { continue }
                guard bytes[i] == HTTP1Bytes.space, i > start else {
                    return fail(i > start && bytes[i] != HTTP1Bytes.cr ? .badTarget : .badRequestLine)
                }
                guard Self.isTargetForm(bytes, start..<i, isConnect: Self.isConnect(bytes, head.method)) else {
                    return fail(.badTargetForm)
                }
                head.target = start..<i
                i += 1
                state = .version(matched: 0)
            case .version(let matched):
                // The usual `HTTP/1.1` CRLF at once, to the state the bytes one by one reach.
                if matched == 0 && i + 10 <= end && HTTP1Bytes.word(bytes, at: i) & HTTP1Bytes.versionPrefixMask
                    == HTTP1Bytes.versionPrefix && (bytes[i + 7] == 48 || bytes[i + 7] == 49)
                    && bytes[i + 8] == HTTP1Bytes.cr && bytes[i + 9] == HTTP1Bytes.lf
                {
                    head.minorVersion = Int(bytes[i + 7] - 48)
                    i += 10
                    state = .fields
                    continue
                }
                let literal: StaticString = "HTTP/1."
                guard byte == literal.utf8Start[matched] else {
                    return fail(matched < 5 ? .badRequestLine : .badVersion)
                }
                i += 1
                state = matched + 1 == literal.utf8CodeUnitCount ? .minorVersion : .version(matched: matched + 1)
            case .minorVersion:
                guard byte == 48 || byte == 49 else { return fail(.badVersion) }
                head.minorVersion = Int(byte - 48)
                i += 1
                state = .requestLineCR
            case .requestLineCR:
                guard byte == HTTP1Bytes.cr else { return fail(.badRequestLine) }
                i += 1
                state = .requestLineLF
            case .requestLineLF:
                guard byte == HTTP1Bytes.lf else { return fail(.badRequestLine) }
                i += 1
                state = .fields
            case .fields:
                switch section.read(bytes, at: &i, end: end, into: &head.fields) {
                case .needMore:
                    continue
                case .end:
                    head.headBytes = i - 2 - cursor.messageStart
                    return completeHead(bytes)
                case .error(let error):
                    return fail(error)
                }
            }
        }
        if i >= cursor.messageStart + limits.maxHeadBytes + 2 {
            return fail(HTTP1ParseError(.headTooLarge, length: i - cursor.messageStart, limit: limits.maxHeadBytes))
        }
        return .needMore
    }

    /// Decides the framing once the head is complete (RFC 9112 6).
    private func completeHead(_ bytes: UnsafeBufferPointer<UInt8>) -> Event {
        if head.headBytes > limits.maxHeadBytes {
            return fail(HTTP1ParseError(.headTooLarge, length: head.headBytes, limit: limits.maxHeadBytes))
        }
        if section.framing.transferEncodingFields > 0 {
            if section.framing.hasContentLength { return fail(.contentLengthWithTransferEncoding) }
            if head.minorVersion == 0 { return fail(.transferEncodingInHTTP10) }
            guard section.framing.isChunkedOnly else { return fail(.unsupportedTransferEncoding) }
            head.bodyLength = .chunked
        } else if let length = section.framing.contentLength, length > 0 {
            if length > limits.maxBodyBytes {
                return fail(HTTP1ParseError(.bodyTooLarge, length: length, limit: limits.maxBodyBytes))
            }
            head.bodyLength = .length(length)
        }
        if head.minorVersion == 1 && section.framing.hostFields == 0 { return fail(.missingHost) }
        head.keepAlive = head.minorVersion == 1
            ? !section.framing.connectionClose : section.framing.connectionKeepAlive && !section.framing.connectionClose
        // After a CONNECT's head the client may already be sending the tunnel's bytes (RFC 9110
        // 9.3.6), which are no request: the connection ends with the answer (a refusal).
        if Self.isConnect(bytes, head.method) { head.keepAlive = false }
        head.expectsContinue = section.framing.expectsContinue && head.minorVersion == 1 && head.bodyLength != .none
        state = .start
        return cursor.headCompleted()
    }

    /// origin-form "/...", asterisk-form "*", or absolute-form "scheme:..." (RFC 9112 3.2); a
    /// scheme is ALPHA *(ALPHA / DIGIT / "+" / "-" / "."). With CONNECT, authority-form
    /// "host:port" too (RFC 9112 3.2.3), so that the method is what gets refused.
    private static func isTargetForm(
        _ bytes: UnsafeBufferPointer<UInt8>, _ target: Range<Int>, isConnect: Bool
    ) -> Bool {
        if isConnect, let colon = target.last(where: { bytes[$0] == HTTP1Bytes.colon }), colon > target.lowerBound,
            target[(colon + 1)...].allSatisfy({ HTTP1Bytes.isDigit(bytes[$0]) })
        {
            return true
        }
        let first = bytes[target.lowerBound]
        if first == 47 { return true }
        if first == 42 { return target.count == 1 }
        guard HTTP1Bytes.lowercased(first) >= 97 && HTTP1Bytes.lowercased(first) <= 122 else { return false }
        for index in target.dropFirst() {
            let byte = HTTP1Bytes.lowercased(bytes[index])
            if byte == HTTP1Bytes.colon { return true }
            guard (byte >= 97 && byte <= 122) || HTTP1Bytes.isDigit(byte) || byte == 43 || byte == 45 || byte == 46 else {
                return false
            }
        }
        return false
    }

    /// Whether the method token at `method` is CONNECT (methods are case-sensitive, RFC 9110 9.1).
    private static func isConnect(_ bytes: UnsafeBufferPointer<UInt8>, _ method: Range<Int>) -> Bool {
        let literal: StaticString = "CONNECT"
        guard method.count == literal.utf8CodeUnitCount else { return false }
        return (0..<method.count).allSatisfy { bytes[method.lowerBound + $0] == literal.utf8Start[$0] }
    }
}
