// One hiredis asynchronous connection on one event loop's event_base: connects (AUTH, SELECT,
// then PING or SUBSCRIBE), reconnects with backoff, and bounds every command by a deadline.
// Nothing here ever blocks the loop, and no failure ever reaches a caller as more than a nil.

import BreakwaterCore
import CHiredis
import Logging

/// A Redis connection owned by one event loop; every method must be called on that loop.
final class RedisConnection {
    /// What the connection is for: commands (one per loop), or the process's subscriber.
    enum Role {
        case commands
        /// Subscribes to `channels` on every connect; `onMessage` gets (channel, payload).
        case subscriber(channels: [String], onMessage: (String, [UInt8]) -> Void)
    }

    let loop: EventLoop
    /// Where it connects; with Redis Sentinel, moved to each new master (`move(to:)`).
    private(set) var endpoint: RedisEndpoint
    private let timeout: Duration
    private let role: Role
    private let health: RedisHealth
    private let logger: Logger

    private var context: UnsafeMutablePointer<redisAsyncContext>?
    private(set) var isReady = false
    /// Counts connection attempts, so that a stale timer never drops a newer connection.
    private var attempt = 0
    private var backoff = RedisConnection.firstBackoff
    /// Calls sent and not yet answered by hiredis (timed-out ones included).
    private var outstanding = 0
    /// Calls in a row that missed their deadline: a connection that stops answering is replaced.
    private var consecutiveTimeouts = 0
    /// Called on this loop each time the connection becomes ready.
    var onReady: (() -> Void)?
    /// Called on this loop each time the connection is lost or an attempt fails.
    var onLost: (() -> Void)?
    /// Called on this loop when the server refuses the handshake (`AUTH`, `SELECT`, or a `PING`
    /// answered with an error such as `NOAUTH`), with the command and the server's error: a
    /// setting is wrong, not the network. The connection is dropped and retried as after any loss.
    var onRefused: ((_ command: String, _ error: String) -> Void)?
    /// Whether this connection counts in the process's `redis` health (a sentinel's does not).
    private let reportsHealth: Bool
    /// Ready only on a master (`ROLE`): with Redis Sentinel, a demoted master is not written to.
    private let requiresMaster: Bool

    private static let firstBackoff = Duration.milliseconds(100)
    private static let maxBackoff = Duration.seconds(5)
    /// More unanswered calls than this and new ones are misses at once (Redis is not keeping up).
    private static let maxOutstanding = 4096
    /// This many deadlines missed in a row and the connection is dropped and made again.
    private static let timeoutsBeforeReconnect = 8

    init(
        loop: EventLoop, endpoint: RedisEndpoint, timeout: Duration, role: Role, health: RedisHealth, logger: Logger,
        reportsHealth: Bool = true, requiresMaster: Bool = false
    ) {
        (self.loop, self.endpoint, self.timeout) = (loop, endpoint, timeout)
        (self.role, self.health, self.logger) = (role, health, logger)
        (self.reportsHealth, self.requiresMaster) = (reportsHealth, requiresMaster)
    }

    /// Points the connection at `address` (the new master): a connection elsewhere is dropped
    /// and made again at once. The first call starts a connection that had no address yet.
    func move(to address: RedisEndpoint.Address) {
        guard address != endpoint.address || context == nil else { return }
        endpoint.address = address
        if context != nil { drop(reason: "the master moved to \(endpoint)") }
        connect()
    }

    /// Whether there is an address to connect to (with Redis Sentinel, not before one said).
    private var hasAddress: Bool {
        if case .tcp(let host, _) = endpoint.address { return !host.isEmpty }
        return true
    }

    /// Whether this connection counts toward `breakwater_redis_up` (the subscriber does not).
    private var isCommandConnection: Bool {
        if case .commands = role { return true }
        return false
    }

    /// How long connecting plus the handshake may take before the attempt is abandoned.
    private var connectTimeout: Duration { max(.seconds(1), timeout * 10) }

    // MARK: - Commands

    /// Sends `arguments` (a command and its arguments, binary-safe); `completion` runs on this
    /// loop exactly once, never inline, with the reply or nil (down, slow, or not sent).
    /// `deadline` replaces `redis.timeout` for calls that must not give up as early (purges).
    func send(_ arguments: [[UInt8]], deadline: Duration? = nil, completion: @escaping (RedisReply?) -> Void) {
        guard isReady, let context, outstanding < Self.maxOutstanding else {
            loop.later { completion(nil) }
            return
        }
        let call = RedisCall(sentAt: .now, completion: completion)
        guard issue(arguments, call: call, on: context) else {
            loop.later { call.finish(nil) }
            return
        }
        loop.schedule(after: deadline ?? timeout) { [weak self, call] in
            guard !call.isFinished else { return }
            call.finish(nil)
            self?.missedDeadline()
        }
    }

    /// Hands one command to hiredis with `call` as its private data; false when hiredis refused it.
    private func issue(_ arguments: [[UInt8]], call: RedisCall, on context: UnsafeMutablePointer<redisAsyncContext>) -> Bool {
        let retained = Unmanaged.passRetained(call).toOpaque()
        guard issue(arguments, callback: .reply, privateData: retained, on: context) else {
            Unmanaged<RedisCall>.fromOpaque(retained).release()
            return false
        }
        outstanding += 1
        return true
    }

    /// Which C callback hiredis calls: once with a `RedisCall`, or per message with this connection.
    private enum CallbackKind { case reply, message }

    /// Hands one command to hiredis, which copies the arguments into its output buffer at once.
    private func issue(
        _ arguments: [[UInt8]], callback: CallbackKind, privateData: UnsafeMutableRawPointer,
        on context: UnsafeMutablePointer<redisAsyncContext>
    ) -> Bool {
        let total = arguments.reduce(0) { $0 + $1.count }
        let storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, total), alignment: 1)
        defer { storage.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        pointers.reserveCapacity(arguments.count)
        lengths.reserveCapacity(arguments.count)
        var offset = 0
        for argument in arguments {
            argument.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { (storage + offset).copyMemory(from: base, byteCount: bytes.count) }
            }
            pointers.append(UnsafePointer((storage + offset).assumingMemoryBound(to: CChar.self)))
            lengths.append(argument.count)
            offset += argument.count
        }
        let count = Int32(arguments.count)
        let status = pointers.withUnsafeMutableBufferPointer { pointerBuffer in
            lengths.withUnsafeBufferPointer { lengthBuffer in
                switch callback {
                case .reply:
                    CHiredis_command(
                        context, redisConnectionReplyCallback, privateData, count, pointerBuffer.baseAddress,
                        lengthBuffer.baseAddress)
                case .message:
                    CHiredis_command(
                        context, redisConnectionMessageCallback, privateData, count, pointerBuffer.baseAddress,
                        lengthBuffer.baseAddress)
                }
            }
        }
        return status == CHiredis_OK
    }

    fileprivate func replied(_ call: RedisCall, _ reply: RedisReply?) {
        outstanding -= 1
        guard !call.isFinished else { return }
        guard let reply else { return call.finish(nil) }
        consecutiveTimeouts = 0
        health.recordLatency(.now - call.sentAt, loop: loop.index)
        if case .error(let message) = reply { health.recordError(loop: loop.index, message: message, logger: logger) }
        call.finish(reply)
    }

    private func missedDeadline() {
        health.recordTimeout(loop: loop.index)
        consecutiveTimeouts += 1
        guard consecutiveTimeouts >= Self.timeoutsBeforeReconnect, isReady else { return }
        consecutiveTimeouts = 0
        drop(reason: "\(Self.timeoutsBeforeReconnect) calls in a row took longer than \(timeout)")
    }

    // MARK: - Connecting

    /// Starts connecting; call once, on this loop.
    func start() {
        connect()
    }

    private func connect() {
        attempt += 1
        guard hasAddress else { return }
        logger.trace(
            "redis connecting",
            metadata: ["redis.attempt": .stringConvertible(attempt), "loop": .stringConvertible(loop.index)])
        let made: UnsafeMutablePointer<redisAsyncContext>?
        switch endpoint.address {
        case .tcp(let host, let port): made = redisAsyncConnect(host, Int32(port))
        case .unix(let path): made = redisAsyncConnectUnix(path)
        }
        guard let made else {
            failed("out of memory creating the connection")
            return
        }
        if let error = CHiredis_error(made) {
            let message = String(cString: error)
            redisAsyncFree(made)
            failed(message)
            return
        }
        CHiredis_setData(made, Unmanaged.passUnretained(self).toOpaque())
        guard CHiredis_attach(made, loop.base) == CHiredis_OK else {
            redisAsyncFree(made)
            failed("could not attach to the event loop")
            return
        }
        redisAsyncSetConnectCallback(made, redisConnectionConnectCallback)
        redisAsyncSetDisconnectCallback(made, redisConnectionDisconnectCallback)
        context = made
        handshake(on: made)
        let thisAttempt = attempt
        loop.schedule(after: connectTimeout) { [weak self] in
            guard let self, self.attempt == thisAttempt, self.context != nil, !self.isReady else { return }
            self.drop(reason: "no answer within \(self.connectTimeout)")
        }
    }

    /// AUTH and SELECT when the URL asks for them, then PING (or SUBSCRIBE): the connection is
    /// ready when the last of them answers. hiredis queues them until the socket connects.
    private func handshake(on context: UnsafeMutablePointer<redisAsyncContext>) {
        var steps: [[String]] = []
        if let password = endpoint.password {
            steps.append(endpoint.username.map { ["AUTH", $0, password] } ?? ["AUTH", password])
        }
        if endpoint.database != 0 { steps.append(["SELECT", String(endpoint.database)]) }
        let thisAttempt = attempt
        for step in steps {
            let name = step[0]
            let call = RedisCall(sentAt: .now) { [weak self] reply in
                guard let self, case .error(let message)? = reply else { return }
                self.health.recordError(loop: self.loop.index)
                self.refused(name, message, attempt: thisAttempt)
            }
            _ = issue(step.map { Array($0.utf8) }, call: call, on: context)
        }
        switch role {
        case .commands where requiresMaster:
            let call = RedisCall(sentAt: .now) { [weak self] reply in
                guard let self, self.attempt == thisAttempt else { return }
                if case .array(let parts)? = reply, parts.first?.bytes == Array("master".utf8) {
                    return self.becameReady()
                }
                guard reply != nil else { return }
                self.loop.later {
                    guard self.attempt == thisAttempt else { return }
                    self.drop(reason: "not the master (ROLE answered otherwise): it was demoted or is a replica")
                }
            }
            _ = issue([Array("ROLE".utf8)], call: call, on: context)
        case .commands:
            let call = RedisCall(sentAt: .now) { [weak self] reply in
                guard let self, self.attempt == thisAttempt else { return }
                if case .status = reply { self.becameReady() }
                // A server that wants a password this connection does not send (`NOAUTH`).
                if case .error(let message)? = reply { self.refused("PING", message, attempt: thisAttempt) }
            }
            _ = issue([Array("PING".utf8)], call: call, on: context)
        case .subscriber(let channels, _):
            // hiredis keeps a SUBSCRIBE callback and calls it for every message on the channels.
            let arguments = ["SUBSCRIBE"] + channels
            _ = issue(
                arguments.map { Array($0.utf8) }, callback: .message,
                privateData: Unmanaged.passUnretained(self).toOpaque(), on: context)
        }
    }

    /// The server refused `command` of the handshake: told to `onRefused`, then the connection
    /// is dropped and retried. Not from inside hiredis's callback: freeing the context there is
    /// not allowed.
    private func refused(_ command: String, _ message: String, attempt thisAttempt: Int) {
        loop.later { [weak self] in
            guard let self, self.attempt == thisAttempt, self.context != nil else { return }
            self.onRefused?(command, message)
            self.drop(reason: "\(command) refused: \(message)")
        }
    }

    fileprivate func message(_ reply: RedisReply?) {
        guard case .subscriber(_, let onMessage) = role, case .array(let parts)? = reply, parts.count >= 3,
            case .string(let kind) = parts[0], case .string(let channel) = parts[1]
        else { return }
        switch String(decoding: kind, as: UTF8.self) {
        case "subscribe":
            if !isReady { becameReady() }
        case "message":
            if case .string(let payload) = parts[2] { onMessage(String(decoding: channel, as: UTF8.self), payload) }
        default:
            break
        }
    }

    private func becameReady() {
        guard !isReady else { return }
        isReady = true
        backoff = Self.firstBackoff
        consecutiveTimeouts = 0
        if reportsHealth && isCommandConnection {
            health.connectionChanged(ready: true, endpoint: endpoint, logger: logger)
        } else if reportsHealth {
            health.subscriberChanged(subscribed: true)
        }
        onReady?()
    }

    /// hiredis reports the outcome of the socket connect (the handshake is answered later).
    fileprivate func connectFinished(_ made: UnsafePointer<redisAsyncContext>?, ok: Bool) {
        logger.trace("redis connect finished", metadata: ["redis.ok": .stringConvertible(ok)])
        guard !ok, let made, made == UnsafePointer(context) else { return }
        // hiredis frees the context after this callback.
        let reason = CHiredis_error(made).map { String(cString: $0) } ?? "connect failed"
        context = nil
        failed(reason)
    }

    /// hiredis lost or closed the connection; it frees the context after this callback.
    fileprivate func disconnected(_ made: UnsafePointer<redisAsyncContext>?) {
        guard let made, made == UnsafePointer(context) else { return }
        let reason = CHiredis_error(made).map { String(cString: $0) } ?? "closed"
        context = nil
        failed(reason)
    }

    /// Abandons the current connection (hung, refused its handshake, or too slow) and retries.
    private func drop(reason: String) {
        guard let dropped = context else { return }
        context = nil
        // Pending calls complete with nil inside; they find the connection already gone.
        redisAsyncFree(dropped)
        failed(reason)
    }

    /// The connection is gone or never came: local-only until the retry after `backoff` succeeds.
    private func failed(_ reason: String) {
        logger.trace("redis connection failed", metadata: ["redis.reason": "\(reason)"])
        if !reportsHealth {
            isReady = false
        } else if !isCommandConnection {
            logger.debug("redis subscriber reconnecting", metadata: ["redis.reason": "\(reason)"])
            isReady = false
            health.subscriberChanged(subscribed: false)
        } else if isReady {
            isReady = false
            health.connectionChanged(ready: false, endpoint: endpoint, logger: logger, reason: reason)
        } else {
            health.connectFailed(endpoint: endpoint, logger: logger, reason: reason)
        }
        // `outstanding` needs no reset: hiredis calls every pending callback once, with a nil reply,
        // when it frees the context (before, during or just after this).
        let delay = backoff * Double.random(in: 0.5...1.0)
        backoff = min(backoff * 2, Self.maxBackoff)
        let failedAttempt = attempt
        loop.schedule(after: delay) { [weak self] in
            guard let self, self.context == nil, self.attempt == failedAttempt else { return }
            self.connect()
        }
        onLost?()
    }

    /// Another connection of this process reached Redis: if this one is waiting out its
    /// backoff, it tries now rather than up to `maxBackoff` later (its pending timer then lapses).
    func retryNow() {
        guard context == nil, attempt > 0 else { return }
        connect()
    }
}

private func connection(of context: UnsafePointer<redisAsyncContext>?) -> RedisConnection? {
    guard let context, let data = CHiredis_data(context) else { return nil }
    return Unmanaged<RedisConnection>.fromOpaque(data).takeUnretainedValue()
}

private func redisConnectionReplyCallback(
    _ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
    _ privateData: UnsafeMutableRawPointer?
) {
    guard let privateData else { return }
    let call = Unmanaged<RedisCall>.fromOpaque(privateData).takeRetainedValue()
    let copied = RedisReply(reply)
    if let owner = connection(of: context) {
        owner.replied(call, copied)
    } else {
        call.finish(copied)
    }
}

private func redisConnectionMessageCallback(
    _ context: UnsafeMutablePointer<redisAsyncContext>?, _ reply: UnsafeMutableRawPointer?,
    _ privateData: UnsafeMutableRawPointer?
) {
    guard let privateData else { return }
    Unmanaged<RedisConnection>.fromOpaque(privateData).takeUnretainedValue().message(RedisReply(reply))
}

private func redisConnectionConnectCallback(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    connection(of: context)?.connectFinished(context, ok: status == CHiredis_OK)
}

private func redisConnectionDisconnectCallback(_ context: UnsafePointer<redisAsyncContext>?, _ status: Int32) {
    connection(of: context)?.disconnected(context)
}
