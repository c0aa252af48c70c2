// The time limits of HTTP/1.1 applied per HTTP/2 stream (docs/reference/client-protocol.md,
// "HTTP/2"): a head must arrive within header_timeout, a body within body_timeout of its head
// (else 408 on the stream, as HTTP/1.1 answers), a stream whose answer waits on a window the
// client keeps shut is reset after body_timeout, and a connection with no stream open is closed
// after idle_timeout. Rules on a clock passed in (nanoseconds); the connection performs them.

/// Deadlines of one HTTP/2 connection and its streams.
public struct HTTP2StreamDeadlines: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var idleTimeout: Int64
        public var headerTimeout: Int64
        public var bodyTimeout: Int64

        public init(idleTimeout: Int64, headerTimeout: Int64, bodyTimeout: Int64) {
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
        }
    }

    /// What a stream is waiting for, and since when.
    private enum Wait: Sendable, Equatable {
        /// Its header block (HEADERS and CONTINUATION up to END_HEADERS).
        case head(since: Int64)
        /// The rest of its body.
        case body(since: Int64)
        /// Its answer: bounded by the origin's timeout, not here.
        case answer
        /// The client's flow-control window, with answer bytes to send.
        case window(since: Int64)
        /// The end of a body refused with 413, read and dropped (`HTTP2RefusedBody`).
        case discard(since: Int64)
    }

    /// What the connection must do now.
    public enum Expiry: Sendable, Equatable {
        /// Reset the stream (CANCEL): its head never completed, or its window stayed shut.
        case resetStream(Int32)
        /// Answer 408 on the stream: its body did not arrive in time.
        case requestTimeout(Int32)
        /// Reset the stream (NO_ERROR): the rest of its refused body took too long.
        case stopDiscarding(Int32)
        /// GOAWAY and close: no stream for `idle_timeout`.
        case closeIdle
    }

    public let configuration: Configuration
    /// The open streams and what each waits for, in the order they opened: a handful at a
    /// time (at most `http2_max_streams`), searched from the newest without hashing.
    private var ids: [Int32] = []
    private var waits: [Wait] = []
    /// When the connection last had no open stream; nil while one is open.
    private var idleSince: Int64?

    public init(configuration: Configuration, now: Int64) {
        self.configuration = configuration
        idleSince = now
    }

    public var openStreams: Int { ids.count }

    @inline(__always)
    private func index(of stream: Int32) -> Int? { ids.lastIndex(of: stream) }

    public mutating func opened(_ stream: Int32, now: Int64) {
        if let at = index(of: stream) {
            waits[at] = .head(since: now)
        } else {
            ids.append(stream)
            waits.append(.head(since: now))
        }
        idleSince = nil
    }

    /// The head is complete; `expectsBody`: the request continues with DATA.
    public mutating func headComplete(_ stream: Int32, expectsBody: Bool, now: Int64) {
        guard let at = index(of: stream) else { return }
        waits[at] = expectsBody ? .body(since: now) : .answer
    }

    public mutating func requestComplete(_ stream: Int32) {
        guard let at = index(of: stream) else { return }
        waits[at] = .answer
    }

    /// The stream's answer has bytes to send and the client's window is shut (a second call
    /// keeps the first time).
    public mutating func windowShut(_ stream: Int32, now: Int64) {
        guard let at = index(of: stream) else { return }
        if case .window = waits[at] { return }
        waits[at] = .window(since: now)
    }

    /// The stream's 413 is sent and the rest of its body is read and dropped, for at most
    /// `body_timeout`.
    public mutating func discarding(_ stream: Int32, now: Int64) {
        guard let at = index(of: stream) else { return }
        waits[at] = .discard(since: now)
    }

    /// The window opened again (bytes were sent).
    public mutating func windowOpened(_ stream: Int32) {
        guard let at = index(of: stream), case .window = waits[at] else { return }
        waits[at] = .answer
    }

    public mutating func closed(_ stream: Int32, now: Int64) {
        guard let at = index(of: stream) else { return }
        ids.remove(at: at)
        waits.remove(at: at)
        if ids.isEmpty { idleSince = now }
    }

    /// The earliest time something expires, or nil.
    public func nextDeadline() -> Int64? {
        var earliest = idleSince.map { $0 + configuration.idleTimeout }
        for wait in waits {
            guard let at = deadline(of: wait) else { continue }
            if earliest == nil || at < earliest! { earliest = at }
        }
        return earliest
    }

    /// What has expired by `now`, in stream order; the streams named are no longer timed (the
    /// connection resets or answers them, and reports their close).
    public mutating func expired(now: Int64) -> [Expiry] {
        var due: [Expiry] = []
        for at in ids.indices.sorted(by: { ids[$0] < ids[$1] }) {
            guard let deadline = deadline(of: waits[at]), deadline <= now else { continue }
            switch waits[at] {
            case .head, .window: due.append(.resetStream(ids[at]))
            case .body: due.append(.requestTimeout(ids[at]))
            case .discard: due.append(.stopDiscarding(ids[at]))
            case .answer: break
            }
            waits[at] = .answer
        }
        if let idleSince, idleSince + configuration.idleTimeout <= now {
            due.append(.closeIdle)
            self.idleSince = nil
        }
        return due
    }

    private func deadline(of wait: Wait) -> Int64? {
        switch wait {
        case .head(let since): since + configuration.headerTimeout
        case .body(let since): since + configuration.bodyTimeout
        case .window(let since), .discard(let since): since + configuration.bodyTimeout
        case .answer: nil
        }
    }
}
