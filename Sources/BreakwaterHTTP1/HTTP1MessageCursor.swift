// Where a parser stands: its offset in the caller's buffer, where the current message began,
// and whether it reads a head, a body or has failed. Shared by the request and response parser,
// which differ only in how they read a head.

/// The part of parsing that is the same for requests and responses.
struct HTTP1MessageCursor {
    private enum Phase {
        case head
        case headDone
        case body
        case failed(HTTP1ParseError)
    }

    private var phase = Phase.head
    private var body = HTTP1BodyReader()
    /// The next offset to read.
    var position = 0
    /// Where the current message's first byte is (head offsets are at or after it).
    var messageStart = 0

    /// Whether the head is still being read (the parser's own state says how far).
    var isReadingHead: Bool {
        if case .head = phase { return true }
        return false
    }

    /// The first offset the parser may still read.
    var retainedFrom: Int {
        switch phase {
        case .head, .headDone: messageStart
        case .body, .failed: position
        }
    }

    /// The peer closed the connection: the end of a close-delimited (or complete) body, else a
    /// truncation.
    mutating func finishAtClose() -> HTTP1ParseEvent {
        switch phase {
        case .failed(let error): return .error(error)
        case .body where body.endsAtClose || body.isComplete: return finish()
        default: return fail(HTTP1ParseError(.truncated))
        }
    }

    /// The buffer lost its first `count` bytes (all before `retainedFrom`).
    mutating func discard(_ count: Int) {
        position -= count
        messageStart -= count
        body.shift(by: count)
    }

    /// The step after the head: the body's next event, or nil while the head is being read.
    mutating func next(in bytes: UnsafeBufferPointer<UInt8>, length: HTTP1BodyLength, maxBodyBytes: Int) -> HTTP1ParseEvent? {
        switch phase {
        case .head:
            return nil
        case .failed(let error):
            return .error(error)
        case .headDone:
            body = HTTP1BodyReader(length, maxBytes: maxBodyBytes)
            phase = .body
        case .body:
            break
        }
        let event = body.read(bytes, at: &position)
        switch event {
        case .end: return finish()
        case .error(let error): return fail(error)
        default: return event
        }
    }

    /// The head is complete; the body (if any) follows on the next call.
    mutating func headCompleted() -> HTTP1ParseEvent {
        phase = .headDone
        return .head
    }

    /// The message is complete; the next byte starts the next one.
    mutating func finish() -> HTTP1ParseEvent {
        phase = .head
        messageStart = position
        return .end
    }

    /// The message is refused: every later call reports the same error.
    mutating func fail(_ error: HTTP1ParseError) -> HTTP1ParseEvent {
        phase = .failed(error)
        return .error(error)
    }
}
