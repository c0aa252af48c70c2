// What one call of a parser's `next(in:)` found: the same events for requests and responses.

/// One step of parsing a message out of the caller's buffer.
package enum HTTP1ParseEvent: Equatable {
    /// Every byte given was consumed; read more.
    case needMore
    /// The head is complete: read it from the parser's `head`.
    case head
    /// Body bytes (decoded when chunked) at these offsets of the buffer.
    case body(Range<Int>)
    /// The message is complete; the next call starts the next one.
    case end
    /// The message is refused; the connection must answer (or fail) and close.
    case error(HTTP1ParseError)
}
