// One client connection on an event loop: a persistent read event, the read buffer and the
// request parser, answers written in request order with one writev, backpressure, deadlines
// (header, body, idle) and a lingering close.

import BreakwaterCore
import BreakwaterHTTP1
import DequeModule
import Foundation

/// A client connection; used only on its loop's thread.
final class HTTPConnection: IOEventHandler {
    private enum Phase {
        case open
        /// Our answers are out and our side is shut: reading and dropping until the peer closes.
        case lingering(since: MonotonicTime)
        case closed
    }

    /// An answer slot, in request order.
    private struct Slot {
        var response: HTTPResponse?
        let omitBody: Bool
        let keepAlive: Bool
        let http10KeepAlive: Bool
    }

    /// Requests dispatched and not yet written past this many: reading stops (pipelining bound).
    private static let maxOutstanding = 16
    /// Unsent answer bytes past this: reading stops until the client reads (backpressure).
    private static let maxUnsentBytes = 256 << 10
    private static let lingerNanoseconds: Int64 = 2_000_000_000

    let loop: EventLoop
    private unowned let listener: HTTPListener
    private let transport: Transport
    private let remoteAddress: String
    private var readEvent: IOEvent?
    private var writeEvent: IOEvent?
    private var timer: IOEvent?
    private var armedDeadline: MonotonicTime?
    private let buffer: ReadBuffer
    private let parser: HTTP1RequestParser
    private var output = OutputQueue()
    private var slots = Deque<Slot>()
    /// Sequence number of `slots.first`.
    private var firstSlot = 0
    private var phase = Phase.open
    /// Reading is off because of backpressure (or because the connection is ending).
    private var isReadPaused = false
    /// No more requests are read: the peer closed, a verdict ended the stream, or an answer said close.
    private var stopsReading = false
    private var peerHasClosed = false
    /// TCP_NODELAY is on (from the first request that keeps the connection open).
    private var hasNoDelay = false
    /// The last request read said `Connection: close` (or was HTTP/1.0 without keep-alive):
    /// the client sends nothing more, unlike one whose request we refused unread.
    private var clientAskedToClose = false
    /// The last read emptied the socket: nothing the client sent is left unread in the kernel.
    private var socketWasDrained = false
    /// Inside a read: answers are queued and written together at its end.
    private var isBatching = false
    private var request: HTTPRequest?
    private var requestOmitsBody = false
    private var headStartedAt: MonotonicTime?
    private var bodyStartedAt: MonotonicTime?
    private var lastActivity = MonotonicTime.now
    /// The listener's timeouts in nanoseconds (as they were when the connection came).
    private let timeouts: ConnectionTimeouts

    init(fd: Int32, peer: String, listener: HTTPListener, tls: TLSServerContext?) throws(SystemError) {
        self.loop = listener.loop
        self.listener = listener
        if let tls {
            transport = .tls(fd, try tls.makeSession(fd: fd))
        } else {
            transport = .plain(fd)
        }
        remoteAddress = peer
        let limits = listener.limits
        buffer = ReadBuffer(maxCapacity: limits.maxHeaderBytes + 64 << 10)
        parser = HTTP1RequestParser(limits: limits.parserLimits)
        timeouts = listener.timeouts
        slots.reserveCapacity(Self.maxOutstanding)
        readEvent = try IOEvent(loop: loop, fd: fd, kind: .read, handler: self)
        writeEvent = try IOEvent(loop: loop, fd: fd, kind: .write, handler: self)
        timer = try IOEvent(loop: loop, fd: -1, kind: .timer, handler: self)
        readEvent?.add()
        scheduleDeadline()
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
        case .timer: deadlinePassed()
        }
    }

    private func didBecomeReadable() {
        if case .lingering = phase { return drainLingering() }
        guard case .open = phase else { return }
        isBatching = true
        defer {
            isBatching = false
            flush()
        }
        // Read until the socket is empty (level-triggered, but a second pass saves a wake-up),
        // a bounded number of times so one connection cannot starve the loop.
        for _ in 0..<4 {
            let space = buffer.freeSpace()
            if space.isEmpty {
                pauseReading()
                return
            }
            let result: SocketIO
            do {
                result = try transport.read(into: space)
            } catch {
                return close()
            }
            switch result {
            case .done(let count):
                buffer.didFill(count)
                lastActivity = .now
                // A short read took all the socket had (nginx's heuristic too).
                socketWasDrained = count < space.count
                parseBuffered()
                guard case .open = phase, !stopsReading, !isReadPaused, count == space.count else { return }
            case .wouldBlock:
                socketWasDrained = true
                return
            case .closed:
                return peerClosed()
            }
        }
    }

    /// Parses and dispatches the complete requests held in the buffer.
    private func parseBuffered() {
        while case .open = phase, !stopsReading {
            if parser.isIdle && slots.count >= Self.maxOutstanding {
                pauseReading()
                break
            }
            let event = buffer.withBytes { parser.next(in: $0) }
            switch event {
            case .needMore:
                compact()
                if parser.isReadingHead && !parser.isIdle && headStartedAt == nil { headStartedAt = .now }
                return
            case .head:
                beginRequest()
            case .body(let range):
                buffer.withBytes { request?.body.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
            case .end:
                bodyStartedAt = nil
                dispatch()
            case .error(let error):
                refuse(error)
            }
        }
        compact()
    }

    private func compact() {
        let unneeded = parser.retainedFrom
        guard unneeded > 0 else { return }
        buffer.discard(unneeded)
        parser.discard(unneeded)
    }

    private func beginRequest() {
        let head = parser.head
        headStartedAt = nil
        let made = buffer.withBytes { bytes -> HTTPRequest in
            func text(_ range: Range<Int>) -> String { FieldText.string(bytes, range) }
            // One more than sent: the identity layer adds X-Request-Id without regrowing the array.
            var headers = HTTPHeaders(capacity: head.fields.count + 1)
            for field in head.fields { headers.add(text(field.name), text(field.value)) }
            var body: [UInt8] = []
            if case .length(let length) = head.bodyLength { body.reserveCapacity(length) }
            return HTTPRequest(
                method: Self.method(bytes, head.method) ?? HTTPMethod(token: text(head.method)),
                target: text(head.target), headers: headers, body: body,
                remoteAddress: remoteAddress, isSecure: listener.limits.tls != nil)
        }
        request = made
        requestOmitsBody = made.method == .head
        if head.bodyLength != .none {
            bodyStartedAt = .now
            // The client waits for this before sending the body (harmless when it did not
            // wait); only when nothing is queued before it, so answers stay in order.
            if head.expectsContinue && slots.isEmpty {
                ResponseHeadWriter.appendContinue(to: &output)
            }
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

    private func dispatch() {
        guard let request else { return }
        self.request = nil
        let head = parser.head
        if !head.keepAlive {
            stopsReading = true
            clientAskedToClose = true
        } else if !hasNoDelay {
            // Set when the connection is to outlive its answer, as nginx does: one that closes
            // after it needs none (the close pushes what Nagle holds), and saves the system call.
            Socket.setNoDelay(transport.fileDescriptor)
            hasNoDelay = true
        }
        slots.append(Slot(
            response: nil, omitBody: requestOmitsBody, keepAlive: head.keepAlive,
            http10KeepAlive: head.minorVersion == 0 && head.keepAlive))
        let sequence = firstSlot + slots.count - 1
        listener.counter.value.add(1, ordering: .relaxed)
        listener.handler.handle(request, responder: ConnectionResponder(connection: self, sequence: sequence))
    }

    /// Answers a refused request (after the answers before it) and ends the connection.
    private func refuse(_ error: HTTP1ParseError) {
        stopsReading = true
        let response = Self.answer(to: error).response
        listener.handler.refused(response, remoteAddress: remoteAddress)
        slots.append(Slot(response: response, omitBody: false, keepAlive: false, http10KeepAlive: false))
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
        listener.counter.value.subtract(1, ordering: .relaxed)
        guard case .open = phase else { return }
        let index = sequence - firstSlot
        guard index >= 0, index < slots.count, slots[index].response == nil else { return }
        slots[index].response = response
        if index == 0 {
            serializeReadyAnswers()
            if !isBatching { flush() }
        }
    }

    /// The handler asked to drop the connection without an answer.
    func abort() {
        listener.counter.value.subtract(1, ordering: .relaxed)
        close()
    }

    private func serializeReadyAnswers() {
        let date = loop.httpDate.current
        while let slot = slots.first, let response = slot.response {
            slots.removeFirst()
            firstSlot += 1
            ResponseHeadWriter.append(
                response, to: &output, date: date, keepAlive: slot.keepAlive,
                http10KeepAlive: slot.http10KeepAlive, omitBody: slot.omitBody)
            if !slot.keepAlive {
                // Nothing after a closing answer is sent.
                slots.removeAll()
                stopsReading = true
                break
            }
        }
    }

    /// Writes what is queued; arms the write event only when the socket would block.
    private func flush() {
        guard case .open = phase else { return }
        while !output.isEmpty {
            do {
                switch try output.write(to: transport) {
                case .done:
                    lastActivity = .now
                    continue
                case .wouldBlock, .closed:
                    if writeEvent?.isPending == false { writeEvent?.add() }
                    applyBackpressure()
                    scheduleDeadline()
                    return
                }
            } catch {
                return close()
            }
        }
        if writeEvent?.isPending == true { writeEvent?.remove() }
        if stopsReading && slots.isEmpty {
            return peerHasClosed ? close() : beginLingering()
        }
        applyBackpressure()
        scheduleDeadline()
    }

    private func applyBackpressure() {
        let overloaded = output.unsentBytes > Self.maxUnsentBytes || slots.count >= Self.maxOutstanding
        if overloaded {
            pauseReading()
        } else if isReadPaused && !stopsReading {
            isReadPaused = false
            readEvent?.add()
            // Requests already buffered are parsed now, not at the next byte from the client.
            if buffer.count > 0 {
                isBatching = true
                parseBuffered()
                isBatching = false
                serializeReadyAnswers()
                flush()
            }
        }
    }

    private func pauseReading() {
        guard !isReadPaused else { return }
        isReadPaused = true
        readEvent?.remove()
    }

    // MARK: Ending

    private func peerClosed() {
        peerHasClosed = true
        stopsReading = true
        pauseReading()
        // Requests already received are still answered (a half-closed client reads them).
        if slots.isEmpty && output.isEmpty { close() }
    }

    /// Shuts our side after the last answer and drops what the client still sends, so that
    /// closing does not reset the connection before the client read the answer.
    private func beginLingering() {
        if case .plain(let fd) = transport {
            // A client that asked to close and sent nothing more (nothing buffered, and the last
            // read emptied the socket while reading was on, so later bytes would have been read)
            // has nothing a close could turn into a reset: closed now, as nginx does, without the
            // shutdown and the wait for its FIN.
            if clientAskedToClose, buffer.count == 0, socketWasDrained, !isReadPaused { return close() }
            Socket.shutdownWrite(fd)
            phase = .lingering(since: .now)
            readEvent?.add()
            isReadPaused = false
            scheduleDeadline()
        } else {
            close()
        }
    }

    private func drainLingering() {
        buffer.discard(buffer.count)
        let space = buffer.freeSpace()
        for _ in 0..<16 {
            switch try? transport.read(into: space) {
            case .done: continue
            case .wouldBlock: return
            default: return close()
            }
        }
    }

    func close() {
        if case .closed = phase { return }
        phase = .closed
        release()
        listener.connectionClosed(self)
    }

    private func release() {
        readEvent?.free()
        writeEvent?.free()
        timer?.free()
        readEvent = nil
        writeEvent = nil
        timer = nil
        if transport.fileDescriptor >= 0, !isReleased {
            isReleased = true
            Socket.close(transport.fileDescriptor)
        }
    }

    private var isReleased = false

    // MARK: Deadlines

    /// The nearest deadline of the connection's state, or nil.
    private func nextDeadline() -> (MonotonicTime, timesOutRequest: Bool)? {
        switch phase {
        case .closed: return nil
        case .lingering(let since): return (since + Self.lingerNanoseconds, false)
        case .open: break
        }
        if let bodyStartedAt { return (bodyStartedAt + timeouts.body, true) }
        if let headStartedAt { return (headStartedAt + timeouts.header, true) }
        // A client that stops reading its answers, or an idle keep-alive connection.
        if !output.isEmpty || slots.isEmpty { return (lastActivity + timeouts.idle, false) }
        return nil
    }

    private func scheduleDeadline() {
        guard let (deadline, _) = nextDeadline(), let timer else { return }
        // Lazy: a later deadline leaves the armed timer alone; when it fires, the state is
        // looked at again and the timer re-armed.
        if timer.isPending, let armedDeadline, armedDeadline <= deadline { return }
        timer.remove()
        armedDeadline = deadline
        timer.add(timeout: deadline.timeval(after: .now))
    }

    private func deadlinePassed() {
        armedDeadline = nil
        guard let (deadline, timesOutRequest) = nextDeadline() else { return }
        guard deadline <= .now else { return scheduleDeadline() }
        guard timesOutRequest else { return close() }
        // The request did not arrive in time: 408, then close.
        headStartedAt = nil
        bodyStartedAt = nil
        stopsReading = true
        let timeout = GraphQLErrorResponse(
            status: 408, message: "The request did not arrive within the server's time limit.", code: "REQUEST_TIMEOUT")
        listener.handler.refused(timeout.response, remoteAddress: remoteAddress)
        slots.append(Slot(response: timeout.response, omitBody: false, keepAlive: false, http10KeepAlive: false))
        serializeReadyAnswers()
        flush()
    }
}
