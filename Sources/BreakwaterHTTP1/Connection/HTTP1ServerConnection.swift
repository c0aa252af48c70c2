// The HTTP/1.1 server side of one client connection as a state machine (README, "The HTTP/1.1
// engine"; docs/ARCHITECTURE.md, "The connection layer"): which requests are read and
// dispatched, answers in request order, when reading pauses and resumes (the pipelining and
// backpressure bounds), the header, body and idle deadlines, refusals, how the connection
// ends (at once, or shut for writing and drained: a lingering close), and the server's drain
// (quiescing: no request taken after the one under way). Pure: no socket, the clock
// passed in as a value; the connection that owns the socket performs what each event returns.

/// One client connection's protocol decisions. Each event is a method returning the one action
/// the I/O layer performs, as in swift-nio's state machines.
///
/// A class, not a struct, as `HTTP1RequestParser` is: its connection asks it questions between
/// events, and each such read of a struct from another module copied all of it.
package final class HTTP1ServerConnection {
    /// Bounds and timeouts, in nanoseconds of the caller's monotonic clock.
    package struct Configuration: Sendable {
        package var idleTimeout: Int64
        package var headerTimeout: Int64
        package var bodyTimeout: Int64
        /// How long a lingering close drains the client's bytes before closing.
        package var lingerTimeout: Int64 = 2_000_000_000
        /// Requests dispatched and not yet written past this many: reading pauses.
        package var maxOutstanding = 16
        /// Unsent answer bytes past this: reading pauses until the client reads.
        package var maxUnsentBytes = 256 << 10
        /// Whether the transport can shut down its writing side alone (plain TCP; not TLS).
        package var canLinger = true
        /// How long a connection that the drain found before its first request waits for it: its
        /// client connected a moment ago and is sending it (closing at once would fail a request
        /// that no client retries, the first on a connection).
        package var firstRequestWait: Int64 = 1_000_000_000

        package init(idleTimeout: Int64, headerTimeout: Int64, bodyTimeout: Int64) {
            self.idleTimeout = idleTimeout
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
        }
    }

    package enum State: Equatable {
        /// Requests are read and dispatched.
        case reading(Reading)
        /// No more requests are read: the answers outstanding are written, then the connection ends.
        case finishing(Finishing)
        /// The answers are out and our side is shut: the client's bytes are dropped until it
        /// closes or the deadline passes.
        case lingering(until: Int64)
        case closed
    }

    package struct Reading: Equatable {
        package var request: RequestProgress
        package var interest: ReadInterest
        /// TCP_NODELAY was asked for (once, at the first request that keeps the connection).
        package var hasNoDelay: Bool
        /// The server drains: the request being read is the last one taken, and its answer
        /// says `Connection: close`.
        package var isQuiesced = false
        /// The drain found the connection before its first request: it waits for it until then.
        package var firstRequestBy: Int64?
    }

    /// How far the request being read got; its deadline runs from when it started.
    package enum RequestProgress: Equatable {
        /// Between requests (idle keep-alive, or nothing but empty lines).
        case awaitingHead
        /// The head's first byte came then (later bytes do not move the header deadline).
        case head(since: Int64)
        /// The head is complete and no body follows.
        case bodyless(omitsBody: Bool)
        /// The head came then; the body is arriving.
        case body(since: Int64, omitsBody: Bool)
    }

    package enum ReadInterest: Equatable {
        case on
        /// Off for backpressure, a full buffer, or the end of the client's stream.
        case paused
    }

    package struct Finishing: Equatable {
        package var reason: EndReason
        package var interest: ReadInterest
    }

    /// Why no more requests are read.
    package enum EndReason: Equatable {
        /// `Connection: close`, or HTTP/1.0 without keep-alive: the client sends nothing more.
        case clientAskedToClose
        /// A request was refused (parse verdict or 408): the client may still be sending.
        case refused
        /// The client closed its side: its requests are still answered, then the connection closes.
        case peerClosed
        /// The server drains: the last answer says `Connection: close`; what the client sent
        /// after its request is not read as a request.
        case quiesced
    }

    /// What the last read found.
    package enum ReadOutcome: Equatable {
        /// The read took all the socket had (a short read, or it would have blocked).
        case drained
        /// The read filled the space given: more may wait in the kernel.
        case filled
    }

    package let configuration: Configuration
    package private(set) var state: State
    /// The request parser; its `head` is valid from `.head` to the next step after `.dispatch`.
    package let parser: HTTP1RequestParser
    private var answers = HTTP1AnswerQueue()
    /// Sequence number of the first outstanding answer.
    private var firstSequence = 0
    private var lastActivity: Int64
    private var lastRead = ReadOutcome.filled
    private var unsentBytes = 0
    /// The reentrancy guard: inside a read, answers are queued and written together at its end.
    private var isInsideRead = false

    package init(configuration: Configuration, limits: HTTP1RequestLimits, now: Int64) {
        var configuration = configuration
        // Room for a refusal after the most dispatched requests.
        configuration.maxOutstanding = max(1, min(configuration.maxOutstanding, HTTP1AnswerQueue.capacity - 2))
        self.configuration = configuration
        parser = HTTP1RequestParser(limits: limits)
        lastActivity = now
        state = .reading(Reading(request: .awaitingHead, interest: .on, hasNoDelay: false))
    }

    /// Answers dispatched or refused and not yet written.
    package var outstanding: Int { answers.count }

    /// The first buffer offset the parser may still read (`HTTP1RequestParser.retainedFrom`).
    /// Asked here, not through `parser`: reading the parser from another module retained and
    /// released it on every call.
    package var retainedFrom: Int { parser.retainedFrom }

    /// The caller dropped `count` bytes from the front of the buffer (`HTTP1RequestParser.discard`).
    package func discard(_ count: Int) { parser.discard(count) }

    // MARK: Reading

    /// What a readable socket means now.
    package enum Readable: Equatable {
        case read
        /// Lingering: read and drop.
        case drain
        case ignore
    }

    package func readable() -> Readable {
        switch state {
        case .reading, .finishing: .read
        case .lingering: .drain
        case .closed: .ignore
        }
    }

    /// A read begins: answers completed meanwhile are written at its end (`readEnded`).
    package func readStarted() { isInsideRead = true }

    /// The read is over: the caller flushes what is queued.
    package func readEnded() { isInsideRead = false }

    /// `count` bytes arrived into a space of `space` bytes.
    package func bytesRead(_ count: Int, space: Int, now: Int64) {
        lastActivity = now
        // A short read took all the socket had (nginx's heuristic too).
        lastRead = count < space ? .drained : .filled
    }

    /// The socket had nothing more (`EAGAIN`).
    package func socketDrained() { lastRead = .drained }

    /// Whether to read again at once after a read of `count` bytes into `space` bytes.
    package func readsAgain(afterReading count: Int, space: Int) -> Bool {
        guard count == space, case .reading(let reading) = state, reading.interest == .on else { return false }
        return true
    }

    /// The read buffer is full at its largest: reading pauses. Returns whether it was on.
    package func bufferFull() -> Bool { pause() }

    /// The client closed its side, with `unsent` answer bytes queued. Returns whether the
    /// connection closes now (nothing left to answer); else reading goes off and the answers
    /// outstanding are still written (a half-closed client reads them).
    package func readEOF(unsent: Int) -> Bool {
        switch state {
        case .reading, .finishing:
            state = .finishing(Finishing(reason: .peerClosed, interest: .paused))
            if answers.isEmpty && unsent == 0 {
                state = .closed
                return true
            }
            return false
        case .lingering, .closed:
            state = .closed
            return true
        }
    }

    /// One step of reading requests out of the buffered bytes.
    package enum RequestStep: Equatable {
        /// Every buffered byte is parsed: drop what `parser.retainedFrom` allows and read more.
        case needMore
        /// Too many answers outstanding: stop reading (the socket's read event goes off).
        case pauseReading
        /// No more requests are read on this connection (or reading is paused already).
        case stop
        /// A head is complete: read it from `parser.head`. When `sendsContinue`, write
        /// `100 Continue` first (the client waits for it before sending the body).
        case head(sendsContinue: Bool)
        /// Body bytes at these offsets of the buffer.
        case body(Range<Int>)
        /// The request is complete: hand it to the handler as answer `sequence`. When
        /// `setsNoDelay`, turn TCP_NODELAY on first (the connection outlives this answer).
        case dispatch(sequence: Int, setsNoDelay: Bool)
        /// The request is refused: queue this answer (after the ones before it); the
        /// connection ends after it.
        case refuse(HTTP1ParseError)
    }

    /// Parses on in `bytes` (the whole read buffer) and says what to do with what it found.
    package func nextRequestStep(in bytes: UnsafeBufferPointer<UInt8>, now: Int64) -> RequestStep {
        guard case .reading(var reading) = state, reading.interest == .on else { return .stop }
        if answers.count >= configuration.maxOutstanding && parser.isIdle {
            reading.interest = .paused
            state = .reading(reading)
            return .pauseReading
        }
        switch parser.next(in: bytes) {
        case .needMore:
            if case .awaitingHead = reading.request, parser.isReadingHead, !parser.isIdle {
                reading.request = .head(since: now)
                state = .reading(reading)
            }
            return .needMore
        case .head:
            let head = parser.head
            let omitsBody = Self.isHEAD(bytes, head.method)
            guard head.bodyLength != .none else {
                reading.request = .bodyless(omitsBody: omitsBody)
                state = .reading(reading)
                return .head(sendsContinue: false)
            }
            reading.request = .body(since: now, omitsBody: omitsBody)
            state = .reading(reading)
            // Only when nothing is queued before it, so that answers stay in order.
            return .head(sendsContinue: head.expectsContinue && answers.isEmpty)
        case .body(let range):
            return .body(range)
        case .end:
            let head = parser.head
            let omitsBody: Bool
            switch reading.request {
            case .bodyless(let omits), .body(_, let omits): omitsBody = omits
            case .awaitingHead, .head: omitsBody = false
            }
            reading.request = .awaitingHead
            let framing = HTTP1AnswerFraming(
                omitsBody: omitsBody, keepAlive: head.keepAlive, http10KeepAlive: head.minorVersion == 0 && head.keepAlive)
            guard answers.append(framing, isReady: false) else { return refuseOverflow() }
            let sequence = firstSequence + answers.count - 1
            if !head.keepAlive {
                state = .finishing(Finishing(reason: .clientAskedToClose, interest: reading.interest))
                return .dispatch(sequence: sequence, setsNoDelay: false)
            }
            if reading.isQuiesced {
                answers.closeLast()
                state = .finishing(Finishing(reason: .quiesced, interest: reading.interest))
                return .dispatch(sequence: sequence, setsNoDelay: false)
            }
            // Set when the connection is to outlive its answer, as nginx does: one that closes
            // after it needs none (the close pushes what Nagle holds), and saves the system call.
            let setsNoDelay = !reading.hasNoDelay
            reading.hasNoDelay = true
            state = .reading(reading)
            return .dispatch(sequence: sequence, setsNoDelay: setsNoDelay)
        case .error(let error):
            state = .finishing(Finishing(reason: .refused, interest: reading.interest))
            _ = answers.append(.closing, isReady: true)
            return .refuse(error)
        }
    }

    /// More answers outstanding than the queue holds (a configuration past its capacity).
    private func refuseOverflow() -> RequestStep {
        state = .finishing(Finishing(reason: .refused, interest: .paused))
        answers.removeAll()
        return .stop
    }

    /// Whether the method token is HEAD (its answer carries no body).
    private static func isHEAD(_ bytes: UnsafeBufferPointer<UInt8>, _ method: Range<Int>) -> Bool {
        method.count == 4 && bytes[method.lowerBound] == 72 && bytes[method.lowerBound + 1] == 69
            && bytes[method.lowerBound + 2] == 65 && bytes[method.lowerBound + 3] == 68
    }

    // MARK: Answers

    /// Where an answer goes.
    package enum AnswerPlacement: Equatable {
        /// The connection is closed, or the sequence is not outstanding (answered already).
        case ignore
        /// Store it at this index of the outstanding answers; earlier ones are still missing.
        case store(index: Int)
        /// Store it at index 0 and write the ready answers (`nextAnswer`); then flush when
        /// `flushes` (outside a read; inside one, the read's end flushes).
        case storeAndWrite(flushes: Bool)
    }

    /// The handler's answer to request `sequence` is ready.
    package func answerReady(_ sequence: Int) -> AnswerPlacement {
        switch state {
        case .reading, .finishing: break
        case .lingering, .closed: return .ignore
        }
        let index = sequence - firstSequence
        guard index >= 0, index < answers.count, !answers.isReady(index) else { return .ignore }
        answers.markReady(index)
        guard index == 0 else { return .store(index: index) }
        return .storeAndWrite(flushes: !isInsideRead)
    }

    /// The framing of the first outstanding answer when it is ready, which the caller writes
    /// now; nil when it is not. After an answer that does not keep the connection, nothing
    /// more is written: the caller drops the answers after it.
    package func nextAnswer() -> HTTP1AnswerFraming? {
        guard let framing = answers.popReady() else { return nil }
        firstSequence += 1
        if !framing.keepAlive {
            firstSequence += answers.count
            answers.removeAll()
        }
        return framing
    }

    // MARK: Writing

    /// Bytes went out at `now` (the idle deadline counts from the last activity).
    package func wrote(now: Int64) { lastActivity = now }

    /// What to do once the queued bytes are written as far as the socket took them.
    package enum WriteAction: Equatable {
        /// Nothing changes; keep (or arm) the timer for this deadline (nil: none).
        case armDeadline(Int64?)
        /// Turn the read event off, and arm the deadline.
        case pauseReading(deadline: Int64?)
        /// Turn the read event on, parse what is buffered, and arm the deadline.
        case resumeReading(deadline: Int64?)
        /// Close the connection now.
        case close
        /// Shut our writing side, turn reading on to drop what comes, and close at `until`.
        case linger(until: Int64)
    }

    /// The socket would block with `unsent` bytes still queued.
    package func wouldBlock(unsent: Int, now: Int64) -> WriteAction {
        unsentBytes = unsent
        return backpressure()
    }

    /// Everything queued is written. `buffered`: bytes read and not parsed.
    package func wroteAll(buffered: Int, now: Int64) -> WriteAction {
        unsentBytes = 0
        guard case .finishing(let finishing) = state, answers.isEmpty else { return backpressure() }
        if finishing.reason == .peerClosed || !configuration.canLinger {
            state = .closed
            return .close
        }
        // A client that asked to close and sent nothing more (nothing buffered, and the last read
        // emptied the socket while reading was on, so later bytes would have been read) has nothing
        // a close could turn into a reset: closed now, as nginx does, without the shutdown and the
        // wait for its FIN.
        if finishing.reason == .clientAskedToClose, buffered == 0, lastRead == .drained, finishing.interest == .on {
            state = .closed
            return .close
        }
        let until = Self.adding(now, configuration.lingerTimeout)
        state = .lingering(until: until)
        return .linger(until: until)
    }

    private func backpressure() -> WriteAction {
        let overloaded = unsentBytes > configuration.maxUnsentBytes || answers.count >= configuration.maxOutstanding
        if overloaded {
            guard pause() else { return .armDeadline(nextDeadline()?.at) }
            return .pauseReading(deadline: nextDeadline()?.at)
        }
        if case .reading(var reading) = state, reading.interest == .paused {
            reading.interest = .on
            state = .reading(reading)
            return .resumeReading(deadline: nextDeadline()?.at)
        }
        return .armDeadline(nextDeadline()?.at)
    }

    /// Turns reading off; returns whether it was on.
    private func pause() -> Bool {
        switch state {
        case .reading(var reading):
            guard reading.interest == .on else { return false }
            reading.interest = .paused
            state = .reading(reading)
            return true
        case .finishing(var finishing):
            guard finishing.interest == .on else { return false }
            finishing.interest = .paused
            state = .finishing(finishing)
            return true
        case .lingering, .closed:
            return false
        }
    }

    // MARK: Quiescing

    /// The server drains (swift-nio's quiescing, nginx's graceful shutdown): no request is taken
    /// after the ones under way. A connection that has taken no request yet waits for its first
    /// one (`firstRequestWait`), answers it with `Connection: close` and ends; one that has
    /// answered and sits idle closes now, lingering so
    /// that a request crossing the close meets a clean end of stream rather than a reset, and the
    /// client may send it again on a new connection (RFC 9112 9.3.1). Otherwise the answer to the
    /// last request taken, or to the one still arriving, says `Connection: close`, and the
    /// connection ends once it is written. Returns what to perform now.
    package func quiesce(now: Int64) -> WriteAction {
        switch state {
        case .reading(var reading):
            switch reading.request {
            case .head, .bodyless, .body:
                // A request is arriving: taken, answered with `Connection: close`, the last one.
                reading.isQuiesced = true
                state = .reading(reading)
                return .armDeadline(nextDeadline()?.at)
            case .awaitingHead:
                if firstSequence == 0 && answers.isEmpty && unsentBytes == 0 {
                    // Before its first request: the client has just connected and is sending it.
                    reading.isQuiesced = true
                    reading.firstRequestBy = Self.adding(now, configuration.firstRequestWait)
                    state = .reading(reading)
                    return .armDeadline(nextDeadline()?.at)
                }
            }
            if !answers.isEmpty {
                answers.closeLast()
                state = .finishing(Finishing(reason: .quiesced, interest: reading.interest))
                return .armDeadline(nextDeadline()?.at)
            }
            state = .finishing(Finishing(reason: .quiesced, interest: reading.interest))
            // An answer still going out: the connection ends once it is written (`wroteAll`).
            guard unsentBytes == 0 else { return .armDeadline(nextDeadline()?.at) }
            guard configuration.canLinger else {
                state = .closed
                return .close
            }
            let until = Self.adding(now, configuration.lingerTimeout)
            state = .lingering(until: until)
            return .linger(until: until)
        case .finishing:
            // Ending already; a half-closed client's last answer says so too.
            answers.closeLast()
            return .armDeadline(nextDeadline()?.at)
        case .lingering, .closed:
            return .armDeadline(nextDeadline()?.at)
        }
    }

    // MARK: Deadlines

    /// The nearest deadline of the connection's state, and whether passing it refuses the
    /// request being read (408) rather than closing.
    package func nextDeadline() -> (at: Int64, timesOutRequest: Bool)? {
        switch state {
        case .closed: return nil
        case .lingering(let until): return (until, false)
        case .reading(let reading):
            switch reading.request {
            case .body(let since, _): return (Self.adding(since, configuration.bodyTimeout), true)
            case .head(let since): return (Self.adding(since, configuration.headerTimeout), true)
            case .awaitingHead:
                if let firstRequestBy = reading.firstRequestBy {
                    return (min(firstRequestBy, Self.adding(lastActivity, configuration.idleTimeout)), false)
                }
            case .bodyless: break
            }
        case .finishing: break
        }
        // A client that stops reading its answers, or an idle keep-alive connection.
        if unsentBytes > 0 || answers.isEmpty { return (Self.adding(lastActivity, configuration.idleTimeout), false) }
        return nil
    }

    package enum DeadlineAction: Equatable {
        /// Not yet: arm the timer again for this deadline (nil: none).
        case armDeadline(Int64?)
        case close
        /// The request did not arrive in time: queue a 408 (after the answers before it),
        /// write, and end the connection after it.
        case refuseTimeout
    }

    /// The connection's timer fired at `now`.
    package func deadline(now: Int64) -> DeadlineAction {
        guard let (at, timesOutRequest) = nextDeadline() else { return .armDeadline(nil) }
        guard at <= now else { return .armDeadline(at) }
        guard timesOutRequest, case .reading(let reading) = state else {
            state = .closed
            return .close
        }
        state = .finishing(Finishing(reason: .refused, interest: reading.interest))
        _ = answers.append(.closing, isReady: true)
        return .refuseTimeout
    }

    // MARK: Ending

    /// The connection is closed (by the handler, an I/O error, or an action).
    package func close() { state = .closed }

    package var isClosed: Bool { if case .closed = state { true } else { false } }

    /// `time + span`, saturating.
    private static func adding(_ time: Int64, _ span: Int64) -> Int64 {
        let (sum, overflow) = time.addingReportingOverflow(span)
        return overflow ? .max : sum
    }
}
