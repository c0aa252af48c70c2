// One client connection on an event loop: the socket, its events and timer, the read buffer
// and the answer queue, performing what the connection's HTTP/1.1 state machine
// (`HTTP1ServerConnection`) decides: requests dispatched, answers written in request order with
// one writev, reading paused and resumed, deadlines, refusals, a lingering or immediate close.

import BreakwaterCore
import BreakwaterHTTP1
import DequeModule
import Foundation

/// A client connection; used only on its loop's thread.
final class HTTPConnection: IOEventHandler {
    let loop: EventLoop
    private unowned let listener: HTTPListener
    private let transport: Transport
    private let remoteAddress: String
    private var readEvent: IOEvent?
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
        var configuration = listener.connectionConfiguration
        configuration.canLinger = tls == nil
        machine = HTTP1ServerConnection(
            configuration: configuration, limits: limits.parserLimits, now: MonotonicTime.now.nanoseconds)
        answers.reserveCapacity(configuration.maxOutstanding)
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
        case .timer: deadlinePassed()
        }
    }

    private func didBecomeReadable() {
        switch machine.readable() {
        case .read: break
        case .drain: return drainLingering()
        case .ignore: return
        }
        machine.readStarted()
        defer {
            machine.readEnded()
            flush()
        }
        // Read until the socket is empty (level-triggered, but a second pass saves a wake-up),
        // a bounded number of times so one connection cannot starve the loop.
        let end: ReadBuffer.ReadEnd
        do {
            end = try buffer.read(from: transport, passes: 4) { count, space in
                let now = MonotonicTime.now.nanoseconds
                machine.bytesRead(count, space: space, now: now)
                parseBuffered(now: now)
                return machine.readsAgain(afterReading: count, space: space)
            }
        } catch {
            return close()
        }
        switch end {
        case .full:
            if machine.bufferFull() { readEvent?.remove() }
        case .wouldBlock:
            machine.socketDrained()
        case .closed:
            if machine.readEOF(unsent: output.unsentBytes) { return close() }
            readEvent?.remove()
        case .stopped:
            break
        }
    }

    /// Performs the machine's steps over the requests held in the buffer.
    private func parseBuffered(now: Int64) {
        steps: while true {
            let step = buffer.withBytes { machine.nextRequestStep(in: $0, now: now) }
            switch step {
            case .needMore:
                break steps
            case .pauseReading:
                readEvent?.remove()
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
        let unneeded = machine.parser.retainedFrom
        guard unneeded > 0 else { return }
        buffer.discard(unneeded)
        machine.parser.discard(unneeded)
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
                remoteAddress: remoteAddress, isSecure: listener.limits.tls != nil)
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
        listener.counter.value.add(1, ordering: .relaxed)
        listener.handler.handle(request, responder: ConnectionResponder(connection: self, sequence: sequence))
    }

    /// Queues a refusal (after the answers before it); the machine ends the connection after it.
    private func refuse(with response: HTTPResponse) {
        listener.handler.refused(response, remoteAddress: remoteAddress)
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
        listener.counter.value.subtract(1, ordering: .relaxed)
        switch machine.answerReady(sequence) {
        case .ignore:
            return
        case .store(let index):
            answers[index] = response
        case .storeAndWrite(let flushes):
            answers[0] = response
            serializeReadyAnswers()
            if flushes { flush() }
        }
    }

    /// The handler asked to drop the connection without an answer.
    func abort() {
        listener.counter.value.subtract(1, ordering: .relaxed)
        close()
    }

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

    /// Writes what is queued; arms the write event only when the socket would block.
    private func flush() {
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
            readEvent?.remove()
            armDeadline(deadline, now: now)
        case .resumeReading(let deadline):
            readEvent?.add()
            armDeadline(deadline, now: now)
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
        readEvent?.free()
        writeEvent?.free()
        timer?.free()
        readEvent = nil
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
        let now = MonotonicTime.now.nanoseconds
        switch machine.deadline(now: now) {
        case .armDeadline(let deadline):
            armDeadline(deadline, now: now)
        case .close:
            close()
        case .refuseTimeout:
            let timeout = GraphQLErrorResponse(
                status: 408, message: "The request did not arrive within the server's time limit.", code: "REQUEST_TIMEOUT")
            request = nil
            refuse(with: timeout.response)
            flush()
        }
    }
}
