// The frames that cost the server work and carry none for it (SETTINGS, PING, PRIORITY, empty
// DATA, and RST_STREAM: a stream reset as soon as opened is the rapid-reset attack,
// CVE-2023-44487), counted against a token bucket per connection: a client may send them in
// bursts, but one that keeps sending them faster than the bucket refills is told to calm down
// (RFC 9113 10.5, GOAWAY ENHANCE_YOUR_CALM). CONTINUATION floods are bounded by nghttp2 itself.

/// The flood rule of one HTTP/2 connection, on a clock passed in (nanoseconds).
public struct HTTP2FloodGuard: Sendable {
    /// A frame that asks for work and brings no request.
    public enum Frame: Sendable, Equatable {
        case settings, ping, priority, emptyData, reset
    }

    public enum Verdict: Sendable, Equatable {
        case allow
        /// GOAWAY with ENHANCE_YOUR_CALM, then close.
        case enhanceYourCalm
    }

    /// Frames allowed at once.
    public let burst: Int
    /// Frames regained per second.
    public let perSecond: Int
    private var tokens: Int
    private var refilledAt: Int64

    public init(burst: Int = 1000, perSecond: Int = 100, now: Int64) {
        self.burst = max(1, burst)
        self.perSecond = max(1, perSecond)
        tokens = self.burst
        refilledAt = now
    }

    /// One such frame received at `now`.
    public mutating func received(_ frame: Frame, now: Int64) -> Verdict {
        refill(now: now)
        guard tokens > 0 else { return .enhanceYourCalm }
        tokens -= 1
        return .allow
    }

    private mutating func refill(now: Int64) {
        let interval = 1_000_000_000 / Int64(perSecond)
        let elapsed = now - refilledAt
        guard elapsed >= interval else { return }
        let gained = elapsed / interval
        tokens = Int(min(Int64(burst), Int64(tokens) + gained))
        refilledAt += gained * interval
    }
}
