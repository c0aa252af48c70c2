// The header fields that decide a message's framing and connection handling, noted as each
// field line completes: Content-Length, Transfer-Encoding, Host, Connection, Expect.

/// What the framing-relevant fields of one head said.
struct HTTP1FramingFields {
    var contentLength: Int?
    var hasContentLength = false
    var transferEncodingFields = 0
    /// Every Transfer-Encoding element seen was `chunked`, and there was exactly one.
    var isChunkedOnly = false
    /// The last transfer coding is `chunked` (what a response's framing depends on).
    var isChunkedLast = false
    var hostFields = 0
    var connectionClose = false
    var connectionKeepAlive = false
    var expectsContinue = false

    /// Records `field`; returns why the head is refused, if it is.
    mutating func note(_ field: HTTP1Field, in bytes: UnsafeBufferPointer<UInt8>) -> HTTP1ParseError.Reason? {
        let name = field.name
        // Dispatch on length first: most fields are none of these and cost one compare.
        switch name.count {
        case 4 where HTTP1Bytes.equalsLowercase(bytes, name, "host"):
            hostFields += 1
            if hostFields > 1 { return .duplicateHost }
        case 6 where HTTP1Bytes.equalsLowercase(bytes, name, "expect"):
            if HTTP1Bytes.equalsLowercase(bytes, field.value, "100-continue") { expectsContinue = true }
        case 10 where HTTP1Bytes.equalsLowercase(bytes, name, "connection"):
            HTTP1Bytes.forEachListElement(bytes, field.value) { token in
                if HTTP1Bytes.equalsLowercase(bytes, token, "close") { connectionClose = true }
                if HTTP1Bytes.equalsLowercase(bytes, token, "keep-alive") { connectionKeepAlive = true }
            }
        case 14 where HTTP1Bytes.equalsLowercase(bytes, name, "content-length"):
            guard let length = HTTP1Bytes.decimal(bytes, field.value) else { return .badContentLength }
            if let earlier = contentLength, earlier != length { return .conflictingContentLength }
            contentLength = length
            hasContentLength = true
        case 17 where HTTP1Bytes.equalsLowercase(bytes, name, "transfer-encoding"):
            transferEncodingFields += 1
            var elements = 0
            var allChunked = true
            var lastChunked = false
            HTTP1Bytes.forEachListElement(bytes, field.value) { coding in
                elements += 1
                lastChunked = HTTP1Bytes.equalsLowercase(bytes, coding, "chunked")
                if !lastChunked { allChunked = false }
            }
            isChunkedOnly = transferEncodingFields == 1 && elements == 1 && allChunked
            isChunkedLast = lastChunked
        default:
            break
        }
        return nil
    }
}
