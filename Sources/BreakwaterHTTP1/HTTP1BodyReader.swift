// One message body after its head, read by the framing the head decided: a fixed length,
// chunked, or until the peer closes. Shared by the request and the response parser.

/// Steps through one body; positions are absolute indices of the caller's buffer.
struct HTTP1BodyReader {
    private enum State {
        case remaining(Int)
        case chunked(HTTP1ChunkedDecoder)
        case untilClose
        case done
    }

    private var state = State.done

    /// Starts the body of a head whose framing is `length`; `maxBytes` bounds a chunked body.
    init(_ length: HTTP1BodyLength, maxBytes: Int) {
        switch length {
        case .none: state = .done
        case .length(let count): state = .remaining(count)
        case .chunked: state = .chunked(HTTP1ChunkedDecoder(maxBytes: maxBytes))
        case .untilClose: state = .untilClose
        }
    }

    init() {}

    /// Whether the body ends when the peer closes (so a close is its end, not a truncation).
    var endsAtClose: Bool {
        if case .untilClose = state { return true }
        return false
    }

    /// Whether every byte of the body has been read.
    var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// The buffer lost its first `count` bytes.
    mutating func shift(by count: Int) {
        guard case .chunked(var decoder) = state else { return }
        decoder.shift(by: count)
        state = .chunked(decoder)
    }

    /// Reads on from `position` over `bytes` (the whole buffer): `.body`, `.needMore`, `.end`
    /// (the next byte belongs to the next message) or `.error`.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, at position: inout Int) -> HTTP1ParseEvent {
        switch state {
        case .done:
            return .end
        case .remaining(let remaining):
            guard position < bytes.count else { return .needMore }
            let take = min(remaining, bytes.count - position)
            position += take
            state = remaining == take ? .done : .remaining(remaining - take)
            return .body((position - take)..<position)
        case .untilClose:
            guard position < bytes.count else { return .needMore }
            let start = position
            position = bytes.count
            return .body(start..<position)
        case .chunked(var decoder):
            state = .done  // the decoder is moved out while it works, so it is not copied
            let step = decoder.decode(bytes, at: &position, end: bytes.count)
            switch step {
            case .needMore: state = .chunked(decoder); return .needMore
            case .data(let range): state = .chunked(decoder); return .body(range)
            case .end: return .end
            case .error(let error): return .error(error)
            }
        }
    }
}
