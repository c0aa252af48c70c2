// Performs an HTTP1ServerConnection's actions the way the server's connection does, against a
// byte array and a simulated socket on a manual clock: what was dispatched, written, paused,
// refused and closed is recorded for the tests to compare.

import BreakwaterHTTP1
import Testing

/// How a scenario's messages reach the machine (swift-nio's ByteToMessageDecoderVerifier idea).
enum Feed: CaseIterable, CustomStringConvertible {
    /// Every message of a step in one read.
    case oneBuffer
    /// One read per message.
    case bufferPerMessage
    /// One read per byte.
    case byteAtATime

    var description: String {
        switch self {
        case .oneBuffer: "one buffer"
        case .bufferPerMessage: "one buffer per message"
        case .byteAtATime: "byte at a time"
        }
    }

    func reads(_ messages: [String]) -> [[UInt8]] {
        switch self {
        case .oneBuffer: [Array(messages.joined().utf8)]
        case .bufferPerMessage: messages.map { Array($0.utf8) }
        case .byteAtATime: messages.joined().utf8.map { [$0] }
        }
    }
}

/// Nanoseconds in `seconds` seconds.
func seconds(_ seconds: Double) -> Int64 { Int64(seconds * 1_000_000_000) }

/// A server connection's performer with no socket.
final class ServerConnectionDriver {
    enum End: Equatable {
        case open
        case lingering
        case closed
    }

    let machine: HTTP1ServerConnection
    private var buffer: [UInt8] = []
    private(set) var now: Int64 = 0
    /// Targets of the requests dispatched, by sequence.
    private(set) var dispatched: [String] = []
    /// Bodies of the requests dispatched, by sequence.
    private(set) var bodies: [String] = []
    /// What was written, in order: a dispatched request's target, or a refusal's status.
    private(set) var written: [String] = []
    /// Framings of the answers written, in order.
    private(set) var framings: [HTTP1AnswerFraming] = []
    private(set) var continues = 0
    private(set) var isReading = true
    private(set) var end = End.open
    /// Times reading was paused and resumed.
    private(set) var pauses = 0
    private(set) var resumes = 0
    private(set) var armed: Int64?
    private(set) var noDelaySet = 0
    /// Bytes queued for the client and not yet taken by the socket.
    private(set) var unsent = 0
    /// How many more bytes the simulated socket takes before it would block.
    var socketRoom = Int.max
    /// The size of each answer written.
    var answerSize = 100
    /// The read space the performer offers per read.
    var readSpace = 4096
    private var pending: [String?] = []
    /// Bytes the client sent while reading was off: in the kernel until reading resumes.
    private(set) var kernel: [UInt8] = []
    private var request = ""
    private var body = ""

    init(configuration: HTTP1ServerConnection.Configuration = ServerConnectionDriver.configuration,
         limits: HTTP1RequestLimits = HTTP1RequestLimits()) {
        machine = HTTP1ServerConnection(configuration: configuration, limits: limits, now: 0)
        armed = machine.nextDeadline()?.at
    }

    static var configuration: HTTP1ServerConnection.Configuration {
        HTTP1ServerConnection.Configuration(idleTimeout: seconds(60), headerTimeout: seconds(10), bodyTimeout: seconds(30))
    }

    // MARK: Client side

    /// The client sends `messages`, arriving as `feed` cuts them.
    func send(_ messages: [String], _ feed: Feed = .oneBuffer) {
        for bytes in feed.reads(messages) { read(bytes) }
    }

    /// The client sends `text` one byte every `interval` nanoseconds (the first at once).
    func trickle(_ text: String, every interval: Int64) {
        for (index, byte) in text.utf8.enumerated() {
            if index > 0 { advance(by: interval) }
            guard end == .open else { return }
            read([byte])
        }
    }

    /// One read of `bytes` (dropped while lingering or not reading).
    func read(_ bytes: [UInt8]) {
        switch machine.readable() {
        case .read: break
        case .drain, .ignore: return
        }
        guard isReading else { return kernel += bytes }
        machine.readStarted()
        buffer += bytes
        machine.bytesRead(bytes.count, space: max(readSpace, bytes.count), now: now)
        parse()
        machine.readEnded()
        flush()
    }

    /// The client closed its side.
    func clientCloses() {
        guard end == .open else { return end = .closed }
        if machine.readEOF(unsent: unsent) { return end = .closed }
        isReading = false
    }

    /// The client reads `count` bytes of its answers: the socket takes that much more.
    func clientReads(_ count: Int) {
        socketRoom = count
        flush()
    }

    // MARK: Handler side

    /// The handler answers request `sequence`.
    func answer(_ sequence: Int) {
        switch machine.answerReady(sequence) {
        case .ignore: return
        case .store(let index): pending[index] = dispatched[sequence]
        case .storeAndWrite(let flushes):
            pending[0] = dispatched[sequence]
            serialize()
            if flushes { flush() }
        }
    }

    /// Answers every request dispatched and not answered yet, in order.
    func answerAll() {
        for sequence in dispatched.indices { answer(sequence) }
    }

    // MARK: Server side

    /// The server drains.
    func quiesce() {
        guard end == .open else { return }
        perform(machine.quiesce(now: now))
    }

    // MARK: Clock

    /// Moves the clock on, firing the timer when its deadline passes.
    func advance(by span: Int64) {
        let target = now + span
        while let at = armed, at <= target, end != .closed {
            now = max(now, at)
            armed = nil
            deadlinePassed()
        }
        now = target
    }

    private func deadlinePassed() {
        switch machine.deadline(now: now) {
        case .armDeadline(let at): arm(at)
        case .close: end = .closed
        case .refuseTimeout:
            request = ""
            refuse("408")
            flush()
        }
    }

    // MARK: Performing

    private func parse() {
        steps: while true {
            let step = buffer.withUnsafeBufferPointer { machine.nextRequestStep(in: $0, now: now) }
            switch step {
            case .needMore, .stop:
                break steps
            case .pauseReading:
                pause()
                break steps
            case .head(let sendsContinue):
                let head = machine.parser.head
                request = String(decoding: buffer[head.target], as: UTF8.self)
                body = ""
                if sendsContinue {
                    continues += 1
                    unsent += 25
                }
            case .body(let range):
                body += String(decoding: buffer[range], as: UTF8.self)
            case .dispatch(let sequence, let setsNoDelay):
                if setsNoDelay { noDelaySet += 1 }
                #expect(sequence == dispatched.count)
                dispatched.append(request)
                bodies.append(body)
                pending.append(nil)
            case .refuse(let error):
                refuse(String(error.status))
            }
        }
        let unneeded = machine.parser.retainedFrom
        buffer.removeFirst(unneeded)
        machine.parser.discard(unneeded)
    }

    private func refuse(_ status: String) {
        pending.append(status)
        serialize()
    }

    private func serialize() {
        while let framing = machine.nextAnswer() {
            guard let answer = pending.removeFirst() else { continue }
            written.append(answer)
            framings.append(framing)
            unsent += answerSize
            if !framing.keepAlive { pending.removeAll() }
        }
    }

    private func flush() {
        guard end == .open else { return }
        let taken = min(unsent, socketRoom)
        if taken > 0 {
            unsent -= taken
            socketRoom -= taken
            machine.wrote(now: now)
        }
        if unsent > 0 { return perform(machine.wouldBlock(unsent: unsent, now: now)) }
        perform(machine.wroteAll(buffered: buffer.count, now: now))
    }

    private func perform(_ action: HTTP1ServerConnection.WriteAction) {
        switch action {
        case .armDeadline(let at):
            arm(at)
        case .pauseReading(let at):
            pause()
            arm(at)
        case .resumeReading(let at):
            isReading = true
            resumes += 1
            arm(at)
            if !buffer.isEmpty {
                machine.readStarted()
                parse()
                machine.readEnded()
                serialize()
                flush()
            }
            if !kernel.isEmpty, end == .open {
                let waiting = kernel
                kernel = []
                read(waiting)
            }
        case .close:
            end = .closed
        case .linger(let until):
            end = .lingering
            isReading = true
            arm(until)
        }
    }

    private func pause() {
        isReading = false
        pauses += 1
    }

    private func arm(_ at: Int64?) {
        guard let at else { return }
        if let armed, armed <= at { return }
        armed = at
    }
}
