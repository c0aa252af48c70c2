// One keep-alive connection to the origin on Breakwater's HTTP/1.1 engine: a non-blocking
// connect, TLS when the origin is https, the request written with one writev, the answer read,
// then back to the pool, performing what the connection's state machine
// (`HTTP1ClientConnection`) decides.

import BreakwaterCore
import BreakwaterHTTP1
import Foundation

/// A connection to the origin, carrying one exchange at a time; used on its pool's loop.
final class OriginConnection: IOEventHandler, TurnEndWriting {
    /// Bound on an answer's size: a larger one is a malformed answer, not an out-of-memory.
    static let maxResponseBytes = 64 << 20

    private unowned let pool: OriginPool
    private var transport: Transport
    private var readEvent: IOEvent?
    private var writeEvent: IOEvent?
    private let machine = HTTP1ClientConnection(maxResponseBytes: OriginConnection.maxResponseBytes)
    private let buffer = ReadBuffer(maxCapacity: 1 << 20)
    private var output = OutputQueue()
    private var exchange: OriginExchange?
    /// Exchanges this connection carried before the current one.
    private var exchangesCarried = 0
    /// The pool stays alive while an exchange runs on it (a reload may replace it meanwhile).
    private var keepsPoolAlive: OriginPool?
    private var status = 0
    private var headers = HTTPHeaders()
    private var body: [UInt8] = []
    /// The answer's head has a `Content-Encoding` field.
    private var isEncoded = false
    var waitsForTurnEnd = false

    /// What failures call the server at the other end (`OriginPool.peer`).
    private let peer: String

    init(pool: OriginPool, address: SocketAddress, tls: TLSClientContext?) throws(SystemError) {
        self.pool = pool
        peer = pool.peer
        let fd = try Socket.connect(address)
        transport = .plain(fd)
        do {
            if let tls { transport = .tls(fd, try tls.makeSession(fd: fd)) }
            readEvent = try IOEvent(loop: pool.loop, fd: fd, kind: .read, handler: self)
            writeEvent = try IOEvent(loop: pool.loop, fd: fd, kind: .write, handler: self)
        } catch {
            Socket.close(fd)
            throw error
        }
        Socket.setNoDelay(fd)
        // Writable once the connection is made.
        writeEvent?.add()
    }

    deinit { release() }

    var isIdle: Bool { machine.isIdle }

    /// Sends `exchange`'s request (once connected).
    func start(_ exchange: OriginExchange) {
        self.exchange = exchange
        exchange.connection = self
        exchange.startedOnConnection(reused: exchangesCarried > 0)
        exchangesCarried += 1
        keepsPoolAlive = pool
        status = 0
        headers = HTTPHeaders()
        body = []
        // Read out of the exchange once (each read copies the request's four fields).
        let request = exchange.request
        let pool = self.pool
        RequestHeadWriter.append(request, host: pool.hostHeader, prefix: pool.requestPrefix, to: &output)
        // Written with the turn's other writes (`TurnEndWrites`): the origin wakes once for them.
        if machine.exchangeStarted(toHEAD: request.method == "HEAD") { pool.loop.turnEndWrites.add(self) }
    }

    func writeAtTurnEnd() {
        // Closed meanwhile: its descriptor may already be another connection's.
        guard !isReleased else { return }
        flush()
    }

    func ioEventFired(_ event: IOEvent, readable: Bool, writable: Bool, timedOut: Bool) {
        if event.kind == .write {
            if machine.isConnecting { return connected() }
            if transport.readWantsWrite { didBecomeReadable() }
            flush()
        } else {
            // A TLS handshake step may be waiting for the origin's bytes before writing on.
            if !output.isEmpty { flush() }
            didBecomeReadable()
        }
    }

    private func connected() {
        let error = Socket.pendingError(transport.fileDescriptor)
        switch machine.connected(succeeded: error == nil) {
        case .fail:
            fail(.refused("cannot connect to \(peer): \(error?.reason ?? "")"))
        case .becomeIdle:
            readEvent?.add()
        case .startExchange:
            readEvent?.add()
            flush()
        }
    }

    private func flush() {
        guard exchange != nil, !machine.isConnecting, !machine.isClosed else { return }
        do {
            while !output.isEmpty {
                guard case .done = try output.write(to: transport) else {
                    if writeEvent?.isPending == false { writeEvent?.add() }
                    return
                }
            }
            if writeEvent?.isPending == true { writeEvent?.remove() }
        } catch {
            fail(failure(error))
        }
    }

    private func didBecomeReadable() {
        guard !machine.isClosed else { return }
        let end: ReadBuffer.ReadEnd
        do {
            end = try buffer.read(from: transport, passes: .max) { count, space in
                guard machine.bytesRead() else { return false }
                parse()
                return !machine.isClosed && count == space
            }
        } catch {
            return fail(failure(error))
        }
        switch end {
        case .closed:
            perform(machine.readEOF(buffered: buffer.count))
        case .full:
            fail(.malformed("the origin's response head is too large"))
        case .wouldBlock, .stopped:
            // Bytes nobody asked for end the connection.
            if machine.isClosed { close() }
        }
    }

    private func parse() {
        while true {
            let step = buffer.withBytes { machine.nextResponseStep(in: $0) }
            if case .needMore = step { break }
            if case .stop = step { break }
            perform(step)
        }
        let unneeded = machine.retainedFrom
        buffer.discard(unneeded)
        machine.discard(unneeded)
    }

    private func perform(_ step: HTTP1ClientConnection.ResponseStep) {
        switch step {
        case .needMore:
            break
        case .stop:
            close()
        case .head:
            let head = machine.head
            status = head.status
            buffer.withBytes { bytes in
                func text(_ range: Range<Int>) -> String { FieldText.string(bytes, range) }
                var fields = HTTPHeaders(capacity: head.fields.count)
                // The framing fields described this connection, which the parser already read,
                // and the origin's Date is replaced by the proxy's own: nothing past here reads
                // them, and each cost two strings per miss.
                var isEncoded = false
                for field in head.fields where !Self.isDropped(bytes, field.name) {
                    fields.add(text(field.name), text(field.value))
                    isEncoded = isEncoded || Self.isContentEncoding(bytes, field.name)
                }
                headers = fields
                self.isEncoded = isEncoded
            }
            if case .length(let length) = head.bodyLength { body.reserveCapacity(length) }
        case .body(let range):
            buffer.withBytes { body.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        case .complete(let reuses):
            // The fields and the body move into the response: the connection keeps no second
            // reference to them (one would make the answer's first change copy them).
            let fields = headers
            headers = HTTPHeaders()
            var response = HTTPResponse(status: status, headers: fields, body: body)
            body = []
            // Asked for gzip (RequestHeadWriter): decoded here, before anything parses or stores it.
            // The field looked up only when the head named it (most answers are not encoded).
            if isEncoded, let coding = fields["Content-Encoding"] {
                guard let decoded = Self.decode(response.body, coding: coding) else {
                    machine.close()
                    return fail(.malformed("the origin's \(coding) body does not decode"))
                }
                response.body = decoded
                response.headers.remove("Content-Encoding")
            }
            let finished = exchange
            exchange = nil
            let pool = keepsPoolAlive
            keepsPoolAlive = nil
            if reuses {
                pool?.connectionBecameIdle(self)
            } else {
                close()
            }
            guard let finished else { return }
            finished.finish(.response(response))
            // Delivered, and no connection, waiting line or timer refers to it any more.
            pool?.recycle(finished)
        case .fail(let failure):
            switch failure {
            case .cannotConnect: fail(.refused("cannot connect to \(peer)"))
            case .closedEarly: fail(.unreachable("\(peer) closed the connection"))
            case .malformed(let error): fail(.malformed("\(peer) sent an invalid response: \(error.reason.rawValue)"))
            }
        }
    }

    /// `Connection`, `Keep-Alive`, `Content-Length`, `Transfer-Encoding` or `Date`, in any case.
    private static func isDropped(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        switch name.count {
        case 4: HTTP1Bytes.equalsLowercase(bytes, name, "date")
        case 10:
            HTTP1Bytes.equalsLowercase(bytes, name, "connection") || HTTP1Bytes.equalsLowercase(bytes, name, "keep-alive")
        case 14: HTTP1Bytes.equalsLowercase(bytes, name, "content-length")
        case 17: HTTP1Bytes.equalsLowercase(bytes, name, "transfer-encoding")
        default: false
        }
    }

    /// Whether the field name at `name` is `Content-Encoding`, in any case.
    private static func isContentEncoding(_ bytes: UnsafeBufferPointer<UInt8>, _ name: Range<Int>) -> Bool {
        name.count == 16 && HTTP1Bytes.equalsLowercase(bytes, name, "content-encoding")
    }

    /// A body in `coding` decoded: gzip and deflate (zlib) through zlib, identity as it is; nil
    /// for a broken stream or any other coding (only gzip is asked for).
    private static func decode(_ body: [UInt8], coding: String) -> [UInt8]? {
        switch coding.trimmingWhitespace().lowercased() {
        case "", "identity": body
        case "gzip", "x-gzip", "deflate": Gzip.gunzip(body, limit: maxResponseBytes)
        default: nil
        }
    }

    private func failure(_ error: SystemError) -> OriginFailure {
        if error.call.hasPrefix("SSL") { return .tls("TLS with \(peer) failed: \(error.reason)") }
        // A connect still under way reports its failure on the first read or write.
        if machine.isConnecting { return .refused("cannot connect to \(peer): \(error.reason)") }
        switch error.code {
        case ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: return .refused("\(peer) is unreachable: \(error.reason)")
        default: return .unreachable("\(peer) is unreachable: \(error.reason)")
        }
    }

    /// Ends the connection and the exchange on it (retried once when the machine says so).
    private func fail(_ failure: OriginFailure) {
        let failed = exchange
        exchange = nil
        let pool = keepsPoolAlive
        keepsPoolAlive = nil
        let retry = machine.failed(mayRetry: failed?.mayRetry ?? false)
        close()
        guard let failed else { return }
        if retry, let pool {
            failed.mayRetry = false
            failed.connection = nil
            pool.retry(failed)
        } else {
            failed.finish(.failure(failure))
        }
    }

    /// The exchange under way, if any.
    var carried: OriginExchange? { exchange }

    /// Closes without finishing the exchange (its deadline passed; the pool answers it).
    func abandon() {
        exchange = nil
        let pool = keepsPoolAlive
        close()
        keepsPoolAlive = nil
        withExtendedLifetime(pool) {}
    }

    /// Closes without telling the pool (the pool itself is going away).
    func shutDown() {
        exchange = nil
        keepsPoolAlive = nil
        machine.close()
        release()
    }

    func close() {
        guard !isReleased else { return }
        machine.close()
        release()
        pool.connectionClosed(self)
    }

    private func release() {
        guard !isReleased else { return }
        isReleased = true
        readEvent?.free()
        writeEvent?.free()
        readEvent = nil
        writeEvent = nil
        Socket.close(transport.fileDescriptor)
    }

    private var isReleased = false
}
