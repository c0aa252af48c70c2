// The HTTP/1.1 client side of one origin connection as a state machine (docs/ARCHITECTURE.md,
// "The connection layer"): connecting, one exchange at a time, the response's framing verdicts
// (interim 1xx answers skipped by the parser, a bound on the body), reuse after a complete answer
// only, bytes or a close while idle in the pool, and which failures may be retried once. Pure: no
// socket; the origin connection that owns the socket performs what each event returns.

/// One origin connection's protocol decisions, event in, action out.
///
/// A class, not a struct, as `HTTP1RequestParser` is: its connection asks it questions between
/// events, and each such read of a struct from another module copied all of it.
package final class HTTP1ClientConnection {
    package enum State: Equatable {
        /// The connect is under way; the exchange waits for it when one was given.
        case connecting(Exchange?)
        /// Connected, between exchanges (in the pool).
        case idle
        /// An exchange is on the wire: its request sent (or being sent), its answer awaited.
        case exchanging(Exchange)
        case closed
    }

    package struct Exchange: Equatable {
        /// Whether the connection carried an exchange before this one.
        package var connection: Use
        /// Whether any byte of the answer came.
        package var received: Received
    }

    package enum Use: Equatable {
        case fresh
        /// Reused from the pool: the origin may have closed it while it sat idle.
        case reused
    }

    package enum Received: Equatable {
        case nothing
        case bytes
    }

    /// Why an exchange failed on this connection.
    package enum Failure: Equatable {
        /// The connect failed.
        case cannotConnect
        /// The origin closed the connection before the whole answer came.
        case closedEarly
        /// The answer broke a framing rule (its body over the bound included).
        case malformed(HTTP1ParseError)
    }

    package private(set) var state = State.connecting(nil)
    private var parser: HTTP1ResponseParser

    /// `maxResponseBytes` bounds an answer's body: a larger one is a malformed answer, not an
    /// out-of-memory.
    package init(maxResponseBytes: Int) {
        parser = HTTP1ResponseParser(maxBodyBytes: maxResponseBytes)
    }

    package var isIdle: Bool { if case .idle = state { true } else { false } }
    package var isClosed: Bool { if case .closed = state { true } else { false } }

    /// The answer's head, valid from `.head` to `.complete`.
    package var head: HTTP1ResponseHead { parser.head }

    /// The first buffer offset the parser may still read; the caller may drop the bytes before
    /// it and then calls `discard(_:)` with their count.
    package var retainedFrom: Int { parser.retainedFrom }

    // MARK: Exchanges

    /// An exchange is given to this connection. Returns whether its request is written now
    /// (else once connected).
    package func exchangeStarted(toHEAD: Bool) -> Bool {
        parser.expectResponse(toHEAD: toHEAD)
        switch state {
        case .connecting:
            state = .connecting(Exchange(connection: .fresh, received: .nothing))
            return false
        case .idle:
            state = .exchanging(Exchange(connection: .reused, received: .nothing))
            return true
        case .exchanging, .closed:
            return false
        }
    }

    package enum ConnectAction: Equatable {
        /// Start reading, and write the waiting exchange's request.
        case startExchange
        /// Start reading; the connection waits in the pool.
        case becomeIdle
        /// The exchange fails: the caller asks `failed(mayRetry:)` whether it goes once more.
        case fail(Failure)
    }

    /// The connect finished (`succeeded` false: the socket reported an error).
    package func connected(succeeded: Bool) -> ConnectAction {
        guard case .connecting(let exchange) = state else { return .becomeIdle }
        guard succeeded else { return .fail(.cannotConnect) }
        guard let exchange else {
            state = .idle
            return .becomeIdle
        }
        state = .exchanging(exchange)
        return .startExchange
    }

    // MARK: Reading

    /// Bytes arrived. Returns false when nobody asked for them (idle): the connection closes.
    package func bytesRead() -> Bool {
        guard case .exchanging(var exchange) = state else {
            state = .closed
            return false
        }
        exchange.received = .bytes
        state = .exchanging(exchange)
        return true
    }

    /// One step of reading the answer.
    package enum ResponseStep: Equatable {
        /// Every buffered byte is parsed: drop what `parser.retainedFrom` allows and read more.
        case needMore
        /// Not exchanging (idle, or closed): nothing to parse.
        case stop
        /// The head is complete: read it from `parser.head`.
        case head
        /// Body bytes at these offsets of the buffer.
        case body(Range<Int>)
        /// The answer is complete: hand it over; the connection goes back to the pool when
        /// `reuses`, else closes.
        case complete(reuses: Bool)
        /// The exchange fails: the caller asks `failed(mayRetry:)` whether it goes once more.
        case fail(Failure)
    }

    /// Parses on in `bytes` (the whole read buffer).
    package func nextResponseStep(in bytes: UnsafeBufferPointer<UInt8>) -> ResponseStep {
        guard case .exchanging = state else { return .stop }
        return step(parser.next(in: bytes), buffered: bytes.count)
    }

    /// The origin closed the connection, with `buffered` bytes read and not parsed.
    package func readEOF(buffered: Int) -> ResponseStep {
        guard case .exchanging = state else {
            // Closed while idle in the pool (or before any exchange): no exchange is hurt.
            state = .closed
            return .stop
        }
        return step(parser.finishAtClose(), buffered: buffered)
    }

    private func step(_ event: HTTP1ParseEvent, buffered: Int) -> ResponseStep {
        switch event {
        case .needMore:
            return .needMore
        case .head:
            return .head
        case .body(let range):
            return .body(range)
        case .end:
            // Reused only after a complete answer with nothing after it: bytes past the answer
            // belong to no request.
            if parser.head.keepAlive && buffered == parser.retainedFrom {
                state = .idle
                return .complete(reuses: true)
            }
            state = .closed
            return .complete(reuses: false)
        case .error(let error):
            return .fail(error.reason == .truncated ? .closedEarly : .malformed(error))
        }
    }

    /// The buffer lost its first `count` bytes (all before `retainedFrom`).
    package func discard(_ count: Int) { parser.discard(count) }

    // MARK: Failing

    /// The exchange failed (a read or write error, or a `.fail` step); the connection closes.
    /// Returns whether the
    /// exchange may go once more on a new connection: only when this one was reused and the
    /// origin sent no byte of the answer (it closed the idle connection as the request went),
    /// and `mayRetry` (the exchange was not retried already).
    package func failed(mayRetry: Bool) -> Bool {
        defer { state = .closed }
        guard mayRetry, case .exchanging(let exchange) = state else { return false }
        return exchange.connection == .reused && exchange.received == .nothing
    }

    /// Whether a failure now comes from the connect still under way.
    package var isConnecting: Bool { if case .connecting = state { true } else { false } }

    /// The connection is closed (abandoned, shut down, or after an action).
    package func close() { state = .closed }
}
