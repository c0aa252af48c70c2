// The rest of a body refused with 413 on an HTTP/2 stream (docs/reference/client-protocol.md,
// "HTTP/2"). The answer may go before the client has sent its whole body (RFC 9113 8.1); a client
// still sending when a RST_STREAM arrives may report the reset instead of the answer it already
// holds (curl 7.88 does). So the rest is read and dropped, as HTTP/1.1 reads a refused body
// before closing, within a bound in bytes here and `body_timeout` in time
// (`HTTP2StreamDeadlines.discarding`); past either, the stream is reset with NO_ERROR.

/// The bytes of a refused body read and dropped after its 413.
public struct HTTP2RefusedBody: Sendable, Equatable {
    /// Bytes dropped after the refusal before the stream is reset instead: a few times the
    /// default `max_body_bytes`, so that a client that sent a body somewhat too large reads its
    /// 413, while one that keeps sending costs at most this much reading.
    public static let discardLimit = 4 << 20

    public private(set) var discarded = 0

    public init() {}

    /// Whether the bytes dropped so far are within `discardLimit`.
    public var isWithinBound: Bool { discarded <= Self.discardLimit }

    /// `count` more bytes of the body arrived and were dropped; whether the stream may go on.
    public mutating func dropped(_ count: Int) -> Bool {
        discarded += count
        return isWithinBound
    }
}
