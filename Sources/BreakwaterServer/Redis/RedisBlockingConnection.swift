// A blocking hiredis connection for the start, before any event loop runs: the cache snapshot's
// catch-up reads the purge log through it (docs/FLEET.md, "No purge lost"). Every connect and
// command is bounded by the time left before one deadline; nothing here runs once the loops serve.

import BreakwaterCore
import CHiredis
import Glibc

/// Why a blocking call to Redis failed: unreachable, refused, or the deadline passed.
struct RedisBlockingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One blocking connection; closed when released.
final class RedisBlockingConnection {
    private let context: UnsafeMutablePointer<redisContext>
    private let deadline: ContinuousClock.Instant
    private let address: String

    /// Connects to `address`, then AUTH and SELECT as `endpoint` asks, all before `deadline`.
    init(
        address: RedisEndpoint.Address, endpoint: RedisEndpoint, deadline: ContinuousClock.Instant
    ) throws(RedisBlockingError) {
        self.deadline = deadline
        var shown = endpoint
        shown.address = address
        self.address = shown.description
        let left = try Self.timeLeft(until: deadline, address: self.address)
        let made: UnsafeMutablePointer<redisContext>? =
            switch address {
            case .tcp(let host, let port): redisConnectWithTimeout(host, Int32(port), left)
            case .unix(let path): redisConnectUnixWithTimeout(path, left)
            }
        guard let made else { throw RedisBlockingError("\(self.address): out of memory") }
        if let error = CHiredis_blockingError(made) {
            let message = String(cString: error)
            redisFree(made)
            throw RedisBlockingError("\(self.address): \(message)")
        }
        context = made
        if let password = endpoint.password {
            try expectOK(command(endpoint.username.map { ["AUTH", $0, password] } ?? ["AUTH", password]), "AUTH")
        }
        if endpoint.database != 0 { try expectOK(command(["SELECT", String(endpoint.database)]), "SELECT") }
    }

    deinit { redisFree(context) }

    /// Sends `arguments` and waits for the reply, at most until the deadline.
    func command(_ arguments: [String]) throws(RedisBlockingError) -> RedisReply {
        let left = try Self.timeLeft(until: deadline, address: address)
        guard redisSetTimeout(context, left) == CHiredis_OK else {
            throw RedisBlockingError("\(address): could not set the timeout")
        }
        var strings = arguments.map { strdup($0) }
        defer { for string in strings { free(string) } }
        let lengths = arguments.map { $0.utf8.count }
        let raw = strings.withUnsafeMutableBufferPointer { pointers in
            pointers.withMemoryRebound(to: UnsafePointer<CChar>?.self) { constPointers in
                lengths.withUnsafeBufferPointer { lengthBuffer in
                    redisCommandArgv(
                        context, Int32(arguments.count), constPointers.baseAddress, lengthBuffer.baseAddress)
                }
            }
        }
        guard let raw else {
            let why = CHiredis_blockingError(context).map { String(cString: $0) } ?? "no reply"
            throw RedisBlockingError("\(address): \(arguments.first ?? ""): \(why)")
        }
        defer { freeReplyObject(raw) }
        guard let reply = RedisReply(raw) else { throw RedisBlockingError("\(address): no reply") }
        return reply
    }

    private func expectOK(_ reply: RedisReply, _ name: String) throws(RedisBlockingError) {
        if case .error(let message) = reply { throw RedisBlockingError("\(address): \(name) refused: \(message)") }
    }

    /// The time left before `deadline` as hiredis takes it; throws once it has passed.
    private static func timeLeft(until deadline: ContinuousClock.Instant, address: String) throws(RedisBlockingError)
        -> timeval
    {
        let left = deadline - .now
        guard left > .zero else { throw RedisBlockingError("\(address): no answer before the deadline") }
        let (seconds, attoseconds) = left.components
        return timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}
