// The fleet's freshness samples in Redis (docs/FRESHNESS.md, "Limits"): every sample this proxy
// takes is appended to its operation's bounded list and counted, and every two seconds the pool
// is read back, so `/stats`, `/metrics` and `advise` show the estimates of the whole fleet. On
// loop 0's connection; when Redis cannot answer, the proxy falls back to its own samples.

import BreakwaterCore
import Logging

/// Writes samples to the fleet's pool and reads the pool back.
final class RedisFreshnessPool: @unchecked Sendable {
    private let connection: RedisConnection
    private let settings: RedisSettings
    // Touched only on the connection's loop.
    private var onRead: ((FreshnessLedger) -> Void)?

    /// How often the pool is read back.
    static let refreshInterval = Duration.seconds(2)

    init(connection: RedisConnection, settings: RedisSettings) {
        self.connection = connection
        self.settings = settings
    }

    /// Appends `sample` to the pool; from any thread, fire and forget.
    func publish(_ sample: FreshnessSample) {
        let bound = LoopBound(self)
        connection.loop.execute { bound.value.append(sample) }
    }

    /// Reads the pool every `refreshInterval` and hands each complete read to `onRead` (on the
    /// loop); call once, from any thread.
    func start(onRead: @escaping @Sendable (FreshnessLedger) -> Void) {
        let bound = LoopBound(self)
        connection.loop.execute {
            bound.value.onRead = onRead
            bound.value.scheduleRefresh()
        }
    }

    private func append(_ sample: FreshnessSample) {
        let keys = settings.keys
        let list = keys.freshnessSamples(sample.operationName)
        send(["RPUSH", list, FreshnessPool.encode(sample)])
        send(["LTRIM", list, "-\(FreshnessPool.kept)", "-1"])
        send(["HINCRBY", keys.freshnessCounts, sample.operationName, "1"])
        if sample.changed { send(["HINCRBY", keys.freshnessChanges, sample.operationName, "1"]) }
    }

    private func scheduleRefresh() {
        connection.loop.schedule(after: Self.refreshInterval) { [self] in
            refresh()
            scheduleRefresh()
        }
    }

    /// Counts, changes, then each operation's list; handed on only when every read answered.
    private func refresh() {
        let keys = settings.keys
        send(["HGETALL", keys.freshnessCounts]) { [self] counts in
            guard let counts = Self.pairs(counts) else { return }
            send(["HGETALL", keys.freshnessChanges]) { [self] changes in
                guard let changes = Self.pairs(changes) else { return }
                let names = counts.keys.sorted().prefix(FreshnessPool.maxOperations)
                var rows: [(name: String, samples: Int, changed: Int, values: [String])] = []
                var waiting = names.count
                if waiting == 0 { return }
                for name in names {
                    send(["LRANGE", keys.freshnessSamples(name), "0", "-1"]) { [self] reply in
                        waiting -= 1
                        if case .array(let items)? = reply {
                            let values = items.compactMap { $0.bytes.map { String(decoding: $0, as: UTF8.self) } }
                            rows.append((name, Int(counts[name] ?? "") ?? 0, Int(changes[name] ?? "") ?? 0, values))
                        }
                        if waiting == 0, rows.count == names.count { onRead?(FreshnessPool.ledger(rows)) }
                    }
                }
            }
        }
    }

    /// The field/value pairs of an HGETALL reply; nil when Redis did not answer one.
    private static func pairs(_ reply: RedisReply?) -> [String: String]? {
        guard case .array(let items)? = reply else { return nil }
        var pairs: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let field = items[index].bytes, let value = items[index + 1].bytes {
                pairs[String(decoding: field, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
            }
            index += 2
        }
        return pairs
    }

    private func send(_ arguments: [String], completion: @escaping (RedisReply?) -> Void = { _ in }) {
        connection.send(arguments.map { Array($0.utf8) }, completion: completion)
    }
}
