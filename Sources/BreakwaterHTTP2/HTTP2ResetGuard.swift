// Rapid reset (CVE-2023-44487) as a count of streams rather than of frames: a client that opens
// streams and resets them before their answers makes the server start work (a parse, an origin
// fetch) that nobody reads, and it can stay under the frame bucket of `HTTP2FloodGuard` while
// doing so. Two rules, after the fixes of 2023:
// - a reset stream whose work still runs holds its place among the connection's concurrent
//   streams (SETTINGS_MAX_CONCURRENT_STREAMS), so a new stream beyond the limit is refused with
//   RST_STREAM REFUSED_STREAM (RFC 9113 5.1.2) until that work ends;
// - Envoy's "premature reset" rule: a stream the client resets within `prematureWithin` of its
//   opening, before its answer, is premature; once `minimumStreams` were opened, a connection
//   whose premature resets reach `maximumShare` of its streams gets GOAWAY ENHANCE_YOUR_CALM
//   (RFC 9113 10.5).

/// The stream-reset rule of one HTTP/2 connection, on a clock passed in (nanoseconds).
public struct HTTP2ResetGuard: Sendable {
    public enum Verdict: Sendable, Equatable {
        case allow
        /// GOAWAY with ENHANCE_YOUR_CALM, then close.
        case enhanceYourCalm
    }

    /// Whether a new stream may start work now.
    public enum Admission: Sendable, Equatable {
        case accept
        /// RST_STREAM REFUSED_STREAM: the streams under way and the work of reset ones fill the limit.
        case refuse
    }

    /// The concurrent streams allowed (SETTINGS_MAX_CONCURRENT_STREAMS).
    public let maxStreams: Int
    /// A reset sooner than this after the stream opened is premature (nanoseconds).
    public let prematureWithin: Int64
    /// Streams opened before the share is judged.
    public let minimumStreams: Int
    /// The share of premature resets (in percent of the streams opened) that ends the connection.
    public let maximumSharePercent: Int
    /// Streams opened over the connection's life.
    public private(set) var opened = 0
    /// Of those, reset by the client within `prematureWithin`, before their answers.
    public private(set) var prematureResets = 0
    /// Streams the client reset whose work (an origin fetch) still runs.
    public private(set) var detached = 0

    public init(
        maxStreams: Int, prematureWithin: Int64 = 1_000_000_000, minimumStreams: Int = 100,
        maximumSharePercent: Int = 50
    ) {
        self.maxStreams = max(1, maxStreams)
        self.prematureWithin = prematureWithin
        self.minimumStreams = max(1, minimumStreams)
        self.maximumSharePercent = max(1, maximumSharePercent)
    }

    /// A stream opened while `open` others (this one not counted) are open: refused when they and
    /// the reset streams whose work runs fill the limit.
    public mutating func streamOpened(open: Int) -> Admission {
        opened += 1
        return open + detached >= maxStreams ? .refuse : .accept
    }

    /// The client reset a stream opened at `openedAt`, before its answer, at `now`; `isDetached`:
    /// its request's work still runs (call `detachedWorkEnded` when it ends).
    public mutating func resetBeforeAnswer(openedAt: Int64, now: Int64, isDetached: Bool) -> Verdict {
        if isDetached { detached += 1 }
        if now - openedAt < prematureWithin { prematureResets += 1 }
        guard opened >= minimumStreams else { return .allow }
        return prematureResets * 100 >= opened * maximumSharePercent ? .enhanceYourCalm : .allow
    }

    /// The work of a reset stream ended (answered into the void, or cancelled).
    public mutating func detachedWorkEnded() {
        detached = max(0, detached - 1)
    }
}
