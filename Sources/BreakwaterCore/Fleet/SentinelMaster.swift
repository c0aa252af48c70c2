// Which Redis is the master, as Redis Sentinel tells it (docs/FLEET.md, "Sentinel"): asked at
// start and after any connection loss (`SENTINEL get-master-addr-by-name`), and told on the
// sentinels' `+switch-master` channel. The decisions live here; the server asks and moves.

/// A Redis host and port, as sentinels name them.
package struct RedisHostPort: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The master this proxy follows, and what to do on each thing the sentinels or the connections say.
package struct SentinelMaster: Sendable, Equatable {
    /// What the server does next.
    package enum Action: Sendable, Equatable {
        case none
        /// Ask the sentinels where the master is.
        case ask
        /// Point every connection (each loop's, and the purge subscriber) at this master.
        case move(to: RedisHostPort)
    }

    package let masterName: String
    /// The master in use; nil until a sentinel first said.
    package private(set) var master: RedisHostPort?
    /// Times the master changed after the first was known.
    package private(set) var failovers = 0
    /// A question is out: more losses meanwhile ask nothing more.
    package private(set) var isAsking = false

    package init(masterName: String) {
        self.masterName = masterName
    }

    /// At start: find the master.
    package mutating func started() -> Action {
        isAsking = true
        return .ask
    }

    /// A connection to the master was lost or refused (it may have moved): ask again.
    package mutating func connectionLost() -> Action {
        guard !isAsking else { return .none }
        isAsking = true
        return .ask
    }

    /// A sentinel answered `SENTINEL get-master-addr-by-name` with `reply` (nil: no answer, or
    /// it does not know the name).
    package mutating func answered(_ reply: RedisHostPort?) -> Action {
        isAsking = false
        guard let reply else { return .none }
        return follow(reply)
    }

    /// A message on a sentinel's `+switch-master` channel:
    /// `<master-name> <old-ip> <old-port> <new-ip> <new-port>`.
    package mutating func switchAnnounced(_ payload: String) -> Action {
        let parts = payload.split(separator: " ")
        guard parts.count == 5, parts[0] == masterName, let port = Int(parts[4]), (1...65535).contains(port) else {
            return .none
        }
        return follow(RedisHostPort(host: String(parts[3]), port: port))
    }

    /// The two strings of a `SENTINEL get-master-addr-by-name` answer, as a master.
    package static func parseAnswer(_ parts: [String]) -> RedisHostPort? {
        guard parts.count == 2, !parts[0].isEmpty, let port = Int(parts[1]), (1...65535).contains(port) else {
            return nil
        }
        return RedisHostPort(host: parts[0], port: port)
    }

    private mutating func follow(_ address: RedisHostPort) -> Action {
        guard address != master else { return .none }
        if master != nil { failovers += 1 }
        master = address
        return .move(to: address)
    }
}
