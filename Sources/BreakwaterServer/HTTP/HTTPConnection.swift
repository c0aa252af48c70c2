// One client connection on an event loop: the socket, its events and timer, the read buffer
// and the answer queue, performing what the connection's protocol decides. HTTP/1.1's state
// machine (`HTTP1ServerConnection`): requests dispatched, answers written in request order with
// one writev, reading paused and resumed, deadlines, refusals, a lingering or immediate close.
// HTTP/2's session (`HTTP2Session`, chosen by ALPN or the preface): streams dispatched, frames
// written as the windows allow, its streams' deadlines, GOAWAY.

import BreakwaterCore
import BreakwaterHTTP1
import BreakwaterHTTP2
import DequeModule
import Foundation

/// A client connection; used only on its loop's thread.
final class HTTPConnection: IOEventHandler, TurnEndWriting {
    let loop: EventLoop
    private unowned let listener: HTTPListener
    /// The listener's handler and request counter, and whether the connection is TLS: read on
    /// every request, held here (each read through the unowned `listener` was an atomic strong
    /// retain and release of it).
    private let handler: any HTTPHandler
    private let counter: Counter
    private let isSecure: Bool
    private let transport: Transport
    private let remoteAddress: String
    private var readEvent: IOEvent?
    /// Watches, while reading is paused, for the client going away (made at the first pause).
    private var closedEvent: IOEvent?
    private var writeEvent: IOEvent?
    private var timer: IOEvent?
    private var armedDeadline: Int64?
    private let buffer: ReadBuffer
    private let machine: HTTP1ServerConnection
    private var output = OutputQueue()
    /// The answers outstanding, in request order (nil: not answered yet); the machine holds
    /// which are ready and how each is framed.
    private var answers = Deque<HTTPResponse?>()
    private var request: HTTPRequest?
    /// The HTTP/2 session, once the connection chose HTTP/2.
    private var http2: HTTP2Session?
    /// HTTP/2 is on and neither the handshake nor the first bytes have chosen the protocol yet.
    private var choosesProtocol: Bool
    /// Inside an HTTP/2 read: answers given meanwhile are flushed at its end.
    private var isReadingHTTP2 = false
    /// What to run, by request sequence (an HTTP/2 stream), should the client leave before the
    /// answer: a reset stream, a client that closed the connection (`whenClientLeaves`).
    private var leaveHooks: [Int: @Sendable () -> Void] = [:]
    var waitsForTurnEnd = false
    /// Since when HTTP/2 frames wait for a socket that takes nothing (a client that stopped reading).
    private var writeStalledSince: Int64?
    /// Counted in the server's drain: told to finish, and not closed yet.
    private var countsInDrain = false
    /// Until when a finished HTTP/2 connection reads and drops what the client still sends after
    /// our side is shut, so that its last frames (a GOAWAY) are not lost to a reset.
    private var lingersUntil: Int64?
    /// The answer bytes an HTTP/2 connection queues before it waits for the socket.
    private static let http2OutputBound = 256 << 10

    init(fd: Int32, peer: String, listener: HTTPListener, tls: TLSServerContext?) throws(SystemError) {
        self.loop = listener.loop
        self.listener = listener
        handler = listener.handler
        counter = listener.counter
        isSecure = tls != nil
        if let tls {
            transport = .tls(fd, try tls.makeSession(fd: fd))
        } else {
            transport = .plain(fd)
        }
        remoteAddress = peer
        let limits = listener.limits
        buffer = ReadBuffer(maxCapacity: limits.maxHeaderBytes + 64 << 10)
        var configuration = listener.connectionConfiguration
        configuration.canLinger = tls == nil
        machine = HTTP1ServerConnection(
            configuration: configuration, limits: limits.parserLimits, now: MonotonicTime.now.nanoseconds)
        answers.reserveCapacity(configuration.maxOutstanding)
        choosesProtocol = listener.http2Settings != nil
        readEvent = try IOEvent(loop: loop, fd: fd, kind: .read, handler: self)
        writeEvent = try IOEvent(loop: loop, fd: fd, kind: .write, handler: self)
        timer = try IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
        readEvent?.add()
        armDeadline(machine.nextDeadline()?.at)
    }

    deinit { release() }

    /// Reads at once what the client may already have sent (under load its request is usually
    /// there when the connection is accepted), instead of in the next turn of the loop. An
    /// answer that ends the connection in this turn then costs no epoll_ctl: libevent's change
    /// list cancels the read event's pending ADD against its DEL. Plain connections only (a TLS
    /// handshake starts on its own event); call after the listener holds the connection.
    func readWhatArrived() {
        guard case .plain = transport else { return }
        didBecomeReadable()
    }

    // MARK: Events

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        switch event.kind {
        case .read: readable ? didBecomeReadable() : ()
        case .write:
            if transport.readWantsWrite { didBecomeReadable() }
            flush()
        case .closed: clientClosedWhilePaused()
        case .timer: deadlinePassed()
        }
    }

    private func didBecomeReadable() {
        if http2 != nil { return lingersUntil == nil ? readHTTP2() : drainLingering() }
        readHTTP1()
        // The first bytes chose HTTP/2: what they brought is fed to the session now.
        if http2 != nil { readHTTP2() }
    }

    private func readHTTP1() {
        switch machine.readable() {
        case .read: break
        case .drain: return drainLingering()
        case .ignore: return
        }
        machine.readStarted()
        // The answers given during the read (hits) go at once: their client is the one that just
        // woke this loop. Answers given later (an origin's) wait for the turn's end.
        defer {
            machine.readEnded()
            flush()
        }
        // Read until the socket is empty (level-triggered, but a second pass saves a wake-up),
        // a bounded number of times so one connection cannot starve the loop.
        let end: ReadBuffer.ReadEnd
        do {
            end = try buffer.read(from: transport, passes: 4) { count, space in
                if choosesProtocol {
                    switch chooseProtocol() {
                    case .needMore: return true
                    case .http2: return false
                    case .http1: break
                    }
                }
                let now = MonotonicTime.now.nanoseconds
                machine.bytesRead(count, space: space, now: now)
                parseBuffered(now: now)
                return machine.readsAgain(afterReading: count, space: space)
            }
        } catch {
            return close()
        }
        if http2 != nil { return }
        switch end {
        case .full:
            if machine.bufferFull() { pauseReading() }
        case .wouldBlock:
            machine.socketDrained()
        case .closed:
            if machine.readEOF(unsent: output.unsentBytes) { return close() }
            readEvent?.remove()
            clientLeaves()
        case .stopped:
            readOnIfHeld()
        }
    }

    /// Stops reading (requests outstanding, a full buffer, answers the client does not take) but
    /// keeps watching for the client's end: a client that closes with pipelined requests still
    /// outstanding leaves them now, not once every answer before them is written (their origin
    /// fetches stop, as for a reset HTTP/2 stream).
    private func pauseReading() {
        readEvent?.remove()
        guard !clientLeft else { return }
        if closedEvent == nil { closedEvent = try? IOEvent(loop: loop, fd: transport.fileDescriptor, kind: .closed, handler: self) }
        if closedEvent?.isPending == false { closedEvent?.add() }
    }

    /// The client shut its side down or reset the connection while reading was paused: its
    /// outstanding requests are left (`clientLeaves`); answers already made are still written
    /// and the connection closes as its machine decides.
    private func clientClosedWhilePaused() {
        closedEvent?.remove()
        clientLeaves()
    }

    /// OpenSSL still holds received bytes that the socket will not announce: the read goes
    /// on in this turn, once the events already due have run, unless reading is paused (its
    /// resumption reads them).
    private func readOnIfHeld() {
        guard transport.holdsUnreadBytes, let readEvent, readEvent.isPending else { return }
        readEvent.activateRead()
    }

    /// Performs the machine's steps over the requests held in the buffer.
    private func parseBuffered(now: Int64) {
        steps: while true {
            let step = buffer.withBytes { machine.nextRequestStep(in: $0, now: now) }
            switch step {
            case .needMore:
                break steps
            case .pauseReading:
                pauseReading()
                break steps
            case .stop:
                break steps
            case .head(let sendsContinue):
                beginRequest()
                if sendsContinue { ResponseHeadWriter.appendContinue(to: &output) }
            case .body(let range):
                buffer.withBytes { request?.body.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
            case .dispatch(let sequence, let setsNoDelay):
                if setsNoDelay { Socket.setNoDelay(transport.fileDescriptor) }
                dispatch(sequence)
            case .refuse(let error):
                refuse(with: Self.answer(to: error).response)
            }
        }
        compact()
    }

    private func compact() {
        let unneeded = machine.retainedFrom
        guard unneeded > 0 else { return }
        buffer.discard(unneeded)
        machine.discard(unneeded)
    }

    private func beginRequest() {
        let head = machine.parser.head
        request = buffer.withBytes { bytes -> HTTPRequest in
            func text(_ range: Range<Int>) -> String { FieldText.string(bytes, range) }
            // One more than sent: the identity layer adds X-Request-Id without regrowing the array.
            var headers = HTTPHeaders(capacity: head.fields.count + 1)
            for field in head.fields { headers.add(text(field.name), text(field.value)) }
            var body: [UInt8] = []
            if case .length(let length) = head.bodyLength { body.reserveCapacity(length) }
            return HTTPRequest(
                method: Self.method(bytes, head.method) ?? HTTPMethod(token: text(head.method)),
                target: text(head.target), headers: headers, body: body,
                remoteAddress: remoteAddress, isSecure: isSecure)
        }
    }

    /// The common methods, recognised without making a string.
    private static func method(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> HTTPMethod? {
        let token = UnsafeBufferPointer(rebasing: bytes[range])
        func equals(_ literal: StaticString) -> Bool {
            token.count == literal.utf8CodeUnitCount && memcmp(token.baseAddress!, literal.utf8Start, token.count) == 0
        }
        switch token.count {
        case 3: return equals("GET") ? .get : equals("PUT") ? .put : nil
        case 4: return equals("POST") ? .post : equals("HEAD") ? .head : nil
        case 5: return equals("PATCH") ? .patch : nil
        case 6: return equals("DELETE") ? .delete : nil
        case 7: return equals("OPTIONS") ? .options : nil
        default: return nil
        }
    }

    private func dispatch(_ sequence: Int) {
        guard let request else { return }
        self.request = nil
        answers.append(nil)
        counter.value.add(1, ordering: .relaxed)
        handler.handle(request, responder: ConnectionResponder(connection: self, sequence: sequence))
    }

    /// Queues a refusal (after the answers before it); the machine ends the connection after it.
    private func refuse(with response: HTTPResponse) {
        handler.refused(response, remoteAddress: remoteAddress, version: .http1)
        answers.append(response)
        serializeReadyAnswers()
    }

    private static func answer(to error: HTTP1ParseError) -> GraphQLErrorResponse {
        switch error.reason {
        case .targetTooLong: .uriTooLong(length: error.length, limit: error.limit)
        case .headTooLarge: .headersTooLarge(length: error.length, limit: error.limit)
        case .bodyTooLarge: .bodyTooLarge(length: error.length, limit: error.limit)
        case .unsupportedTransferEncoding:
            GraphQLErrorResponse(status: 501, message: "Transfer-Encoding other than chunked is not supported.", code: "NOT_IMPLEMENTED")
        default: .badRequest("Malformed HTTP request: \(error.reason.rawValue).")
        }
    }

    // MARK: Answers

    /// The handler's answer to request `sequence`; written once every earlier one is.
    func complete(_ sequence: Int, with response: HTTPResponse) {
        counter.value.subtract(1, ordering: .relaxed)
        if !leaveHooks.isEmpty { leaveHooks[sequence] = nil }
        if let http2 {
            guard !isReleased else { return }
            http2.answer(Int32(truncatingIfNeeded: sequence), with: response, date: loop.httpDate.current)
            if !isReadingHTTP2 { flush() }
            return
        }
        switch machine.answerReady(sequence) {
        case .ignore:
            return
        case .store(let index):
            answers[index] = response
        case .storeAndWrite(let flushes):
            answers[0] = response
            serializeReadyAnswers()
            if flushes { loop.turnEndWrites.add(self) }
        }
    }

    /// The handler asked to drop request `sequence` without an answer: the connection, or
    /// over HTTP/2 the stream.
    func abort(_ sequence: Int) {
        counter.value.subtract(1, ordering: .relaxed)
        if !leaveHooks.isEmpty { leaveHooks[sequence] = nil }
        guard let http2 else { return close() }
        guard !isReleased else { return }
        http2.reset(Int32(truncatingIfNeeded: sequence))
        flush()
    }

    /// Runs `body` should the client of request `sequence` leave before its answer; at once when
    /// it left already.
    func whenClientLeaves(_ sequence: Int, _ body: @escaping @Sendable () -> Void) {
        guard !isReleased, !clientLeft else { return body() }
        leaveHooks[sequence] = body
    }

    /// The client is gone with answers outstanding (nginx treats an HTTP/1.1 client's end of
    /// stream so, unless told to ignore client aborts): each request's hook runs once.
    private func clientLeaves() {
        clientLeft = true
        let hooks = leaveHooks
        leaveHooks = [:]
        for hook in hooks.values { hook() }
    }

    /// The client closed its side or the connection was released: no hook waits any more.
    private var clientLeft = false

    private func serializeReadyAnswers() {
        let date = loop.httpDate.current
        while let framing = machine.nextAnswer() {
            guard let response = answers.removeFirst() else { continue }
            ResponseHeadWriter.append(
                response, to: &output, date: date, keepAlive: framing.keepAlive,
                http10KeepAlive: framing.http10KeepAlive, omitBody: framing.omitsBody)
            // Nothing after a closing answer is sent.
            if !framing.keepAlive { answers.removeAll() }
        }
    }

    func writeAtTurnEnd() {
        // Closed meanwhile: its descriptor may already be another connection's.
        guard !isReleased else { return }
        flush()
    }

    /// Writes what is queued; arms the write event only when the socket would block.
    private func flush() {
        if let http2 { return flushHTTP2(http2) }
        guard !machine.isClosed else { return }
        var wroteSome = false
        while !output.isEmpty {
            do {
                switch try output.write(to: transport) {
                case .done:
                    wroteSome = true
                    continue
                case .wouldBlock, .closed:
                    if writeEvent?.isPending == false { writeEvent?.add() }
                    let now = MonotonicTime.now.nanoseconds
                    if wroteSome { machine.wrote(now: now) }
                    return perform(machine.wouldBlock(unsent: output.unsentBytes, now: now), now: now)
                }
            } catch {
                return close()
            }
        }
        if writeEvent?.isPending == true { writeEvent?.remove() }
        let now = MonotonicTime.now.nanoseconds
        if wroteSome { machine.wrote(now: now) }
        perform(machine.wroteAll(buffered: buffer.count, now: now), now: now)
    }

    private func perform(_ action: HTTP1ServerConnection.WriteAction, now: Int64) {
        switch action {
        case .armDeadline(let deadline):
            armDeadline(deadline, now: now)
        case .pauseReading(let deadline):
            pauseReading()
            armDeadline(deadline, now: now)
        case .resumeReading(let deadline):
            closedEvent?.remove()
            readEvent?.add()
            armDeadline(deadline, now: now)
            readOnIfHeld()
            // Requests already buffered are parsed now, not at the next byte from the client.
            if buffer.count > 0 {
                machine.readStarted()
                parseBuffered(now: now)
                machine.readEnded()
                serializeReadyAnswers()
                flush()
            }
        case .close:
            close()
        case .linger(let until):
            guard case .plain(let fd) = transport else { return close() }
            Socket.shutdownWrite(fd)
            readEvent?.add()
            armDeadline(until, now: now)
        }
    }

    // MARK: Ending

    /// Drops what the client still sends after our side is shut, so that closing does not
    /// reset the connection before the client read the answer.
    private func drainLingering() {
        buffer.discard(buffer.count)
        let end = try? buffer.read(from: transport, passes: 16) { _, _ in
            buffer.discard(buffer.count)
            return true
        }
        switch end {
        case .wouldBlock, .stopped: return
        case .closed, .full, nil: close()
        }
    }

    func close() {
        guard !isReleased else { return }
        machine.close()
        release()
        listener.connectionClosed(self)
    }

    private func release() {
        guard !isReleased else { return }
        isReleased = true
        clientLeaves()
        if countsInDrain {
            countsInDrain = false
            counter.draining.subtract(1, ordering: .relaxed)
        }
        readEvent?.free()
        closedEvent?.free()
        writeEvent?.free()
        timer?.free()
        readEvent = nil
        closedEvent = nil
        writeEvent = nil
        timer = nil
        if transport.fileDescriptor >= 0 { Socket.close(transport.fileDescriptor) }
    }

    private var isReleased = false

    // MARK: Deadlines

    private func armDeadline(_ deadline: Int64?, now: Int64 = MonotonicTime.now.nanoseconds) {
        guard let deadline, let timer else { return }
        // Lazy: a later deadline leaves the armed timer alone; when it fires, the machine looks
        // at its state again and the timer is re-armed.
        if timer.isPending, let armedDeadline, armedDeadline <= deadline { return }
        timer.remove()
        armedDeadline = deadline
        timer.add(timeout: MonotonicTime(nanoseconds: deadline).timeval(after: MonotonicTime(nanoseconds: now)))
    }

    private func deadlinePassed() {
        armedDeadline = nil
        if let http2 { return http2DeadlinePassed(http2) }
        let now = MonotonicTime.now.nanoseconds
        switch machine.deadline(now: now) {
        case .armDeadline(let deadline):
            armDeadline(deadline, now: now)
        case .close:
            close()
        case .refuseTimeout:
            request = nil
            refuse(with: Self.requestTimeout)
            flush()
        }
    }

    private static var requestTimeout: HTTPResponse {
        GraphQLErrorResponse(
            status: 408, message: "The request did not arrive within the server's time limit.", code: "REQUEST_TIMEOUT"
        ).response
    }

    // MARK: HTTP/2

    /// Whether the connection is HTTP/2: chosen by the TLS handshake's ALPN, or by the preface
    /// on the buffer's first bytes (RFC 9113 3.3).
    private func chooseProtocol() -> HTTP2Preface.Choice {
        if case .tls(_, let session) = transport, session.negotiatedHTTP2 {
            return startHTTP2() ? .http2 : .http1
        }
        let choice = buffer.withBytes { HTTP2Preface.choose($0) }
        switch choice {
        case .http2: return startHTTP2() ? .http2 : .http1
        case .http1: choosesProtocol = false
        case .needMore: break
        }
        return choice
    }

    private func startHTTP2() -> Bool {
        choosesProtocol = false
        guard let settings = listener.http2Settings,
            let started = try? HTTP2Session(
                settings: settings, remoteAddress: remoteAddress, isSecure: isSecure,
                now: MonotonicTime.now.nanoseconds)
        else { return false }
        // Chosen after the drain began (the preface came after): the connection goes away at once.
        if countsInDrain { started.beginGoingAway(now: MonotonicTime.now.nanoseconds) }
        http2 = started
        return true
    }

    /// Feeds what is buffered to the session, then reads on until the socket is empty.
    private func readHTTP2() {
        guard let http2 else { return }
        isReadingHTTP2 = true
        defer {
            isReadingHTTP2 = false
            flush()
        }
        guard receiveHTTP2(http2) else { return }
        let end: ReadBuffer.ReadEnd
        do {
            end = try buffer.read(from: transport, passes: 4) { count, space in
                receiveHTTP2(http2) && count == space
            }
        } catch {
            return close()
        }
        switch end {
        case .closed: close()
        case .stopped: readOnIfHeld()
        case .wouldBlock, .full: break
        }
    }

    /// The buffered bytes through the session, and its requests to the handler; false when
    /// the session broke (its GOAWAY, if any, is sent before the connection closes).
    private func receiveHTTP2(_ http2: HTTP2Session) -> Bool {
        guard buffer.count > 0, !isReleased else { return !isReleased }
        let now = MonotonicTime.now.nanoseconds
        let events = buffer.withBytes { http2.receive($0, now: now) }
        buffer.discard(buffer.count)
        guard let events else {
            // Nothing more is read: what the session queued (its GOAWAY) goes out, then the close.
            readEvent?.remove()
            return false
        }
        perform(events, on: http2)
        return !isReleased
    }

    private func perform(_ events: [HTTP2Session.Event], on http2: HTTP2Session) {
        for event in events {
            switch event {
            case .request(let stream, let request):
                counter.value.add(1, ordering: .relaxed)
                handler.handle(request, responder: ConnectionResponder(connection: self, sequence: Int(stream)))
            case .refusal(let stream, let response):
                handler.refused(response, remoteAddress: remoteAddress, version: .http2)
                http2.answer(stream, with: response, date: loop.httpDate.current)
            case .abandoned(let stream):
                leaveHooks.removeValue(forKey: Int(stream))?()
            }
        }
    }

    /// Frames out until the socket would block or the session has none; closes once the
    /// session is done (GOAWAY sent and no stream left).
    private func flushHTTP2(_ http2: HTTP2Session) {
        guard !isReleased else { return }
        while true {
            guard http2.send(into: &output, bound: Self.http2OutputBound) else { return close() }
            if output.isEmpty { break }
            do {
                switch try output.write(to: transport) {
                case .done:
                    writeStalledSince = nil
                    continue
                case .wouldBlock, .closed:
                    if writeEvent?.isPending == false { writeEvent?.add() }
                    if writeStalledSince == nil { writeStalledSince = MonotonicTime.now.nanoseconds }
                    return armHTTP2Deadline(http2)
                }
            } catch {
                return close()
            }
        }
        writeStalledSince = nil
        if writeEvent?.isPending == true { writeEvent?.remove() }
        if http2.isDone { return lingerHTTP2() }
        armHTTP2Deadline(http2)
    }

    /// The HTTP/2 connection is over and its last frames are written: a plain connection shuts its side
    /// and drops what still arrives for a moment (closing with unread bytes would reset the
    /// connection, and the client could lose the GOAWAY); a TLS one closes.
    private func lingerHTTP2() {
        guard lingersUntil == nil else { return }
        guard case .plain(let fd) = transport else { return close() }
        let now = MonotonicTime.now.nanoseconds
        lingersUntil = now + Self.http2Linger
        Socket.shutdownWrite(fd)
        readEvent?.add()
        armDeadline(lingersUntil, now: now)
    }

    /// How long a finished HTTP/2 connection drops what the client still sends.
    private static let http2Linger: Int64 = 2_000_000_000

    private func armHTTP2Deadline(_ http2: HTTP2Session) {
        var deadline = http2.deadlines.nextDeadline()
        if let due = http2.finalGoAwayDeadline { deadline = min(deadline ?? due, due) }
        if let writeStalledSince {
            let stall = writeStalledSince + connectionConfigurationIdleTimeout
            deadline = min(deadline ?? stall, stall)
        }
        armDeadline(deadline)
    }

    private var connectionConfigurationIdleTimeout: Int64 { listener.connectionConfiguration.idleTimeout }

    private func http2DeadlinePassed(_ http2: HTTP2Session) {
        let now = MonotonicTime.now.nanoseconds
        if let lingersUntil {
            if now >= lingersUntil { return close() }
            return armDeadline(lingersUntil, now: now)
        }
        if let writeStalledSince, now >= writeStalledSince + connectionConfigurationIdleTimeout { return close() }
        http2.goAwayIfDue(now: now)
        let events = http2.deadlinePassed(now: now) { Self.requestTimeout }
        perform(events, on: http2)
        flush()
    }

    /// The server drains (docs/OPERATING.md, "Stopping: the drain"): an HTTP/1.1 connection takes no
    /// request after the one under way, whose answer says `Connection: close`, and closes once
    /// it is written (an idle one closes now, lingering); an HTTP/2 one says GOAWAY in two steps
    /// and closes when its streams are answered. Counted in the drain until it is closed.
    func quiesce() {
        guard !isReleased else { return }
        if !countsInDrain {
            countsInDrain = true
            counter.draining.add(1, ordering: .relaxed)
        }
        let now = MonotonicTime.now.nanoseconds
        if let http2 {
            http2.beginGoingAway(now: now)
            return flush()
        }
        perform(machine.quiesce(now: now), now: now)
    }
}
