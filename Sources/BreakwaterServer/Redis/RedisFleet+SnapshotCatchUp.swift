// The cache snapshot's catch-up at start (docs/FLEET.md, "No purge lost"; docs/OPERATING.md, "The
// cache across restarts"): before the loops run, the purge log is read from the snapshot's position
// through a blocking connection, so that no entry loaded from the snapshot is served before the
// purges made since have reached it. CacheSnapshotCatchUp decides; this reads.

import BreakwaterCore

extension RedisFleet {
    /// How long a start may wait for Redis before it drops what its snapshot brought back: a few
    /// seconds, or `redis.timeout` when longer.
    static func catchUpBudget(_ settings: RedisSettings) -> Duration {
        max(.seconds(2), settings.timeout)
    }

    /// Reads the fleet's generation and the purge log from `catchUp`'s position, page by page, and
    /// returns what becomes of the snapshot's entries. Blocks, within `catchUpBudget`: call before
    /// the loops run. Redis unreachable, refusing or too slow drops the entries.
    package func catchUp(_ catchUp: CacheSnapshotCatchUp) -> CacheSnapshotCatchUp.Outcome {
        var catchUp = catchUp
        let deadline = ContinuousClock.now + Self.catchUpBudget(settings)
        let keys = settings.keys
        var fleetGeneration: UInt64?
        do throws(RedisBlockingError) {
            let connection = try RedisBlockingConnection(
                address: try masterAddress(before: deadline), endpoint: settings.endpoint, deadline: deadline)
            switch try connection.command(["GET", keys.generation]) {
            case .null: fleetGeneration = 0
            case .string(let bytes): fleetGeneration = UInt64(String(decoding: bytes, as: UTF8.self))
            case let other: throw RedisBlockingError("GET \(keys.generation) answered \(other)")
            }
            var step = catchUp.start
            while case .read(let from) = step {
                let reply = try connection.command(
                    ["XRANGE", keys.purgeLog, from.description, "+", "COUNT", String(catchUp.pageSize)])
                guard case .array(let items) = reply else {
                    throw RedisBlockingError("XRANGE \(keys.purgeLog) answered \(reply)")
                }
                step = catchUp.read(items.compactMap(RedisPurgeBus.logEntry))
            }
        } catch {
            catchUp.failed(error.description)
        }
        return catchUp.outcome(fleetGeneration: fleetGeneration)
    }

    /// `redis.url`'s address, or with `redis.sentinels` the master the first of them to answer
    /// names (`SENTINEL get-master-addr-by-name`).
    private func masterAddress(before deadline: ContinuousClock.Instant) throws(RedisBlockingError)
        -> RedisEndpoint.Address
    {
        guard settings.usesSentinel else { return settings.endpoint.address }
        var failures: [String] = []
        for sentinel in settings.sentinels {
            do throws(RedisBlockingError) {
                let connection = try RedisBlockingConnection(
                    address: sentinel.address, endpoint: sentinel, deadline: deadline)
                let reply = try connection.command(["SENTINEL", "get-master-addr-by-name", settings.masterName])
                if case .array(let parts) = reply,
                    let master = SentinelMaster.parseAnswer(
                        parts.map { String(decoding: $0.bytes ?? [], as: UTF8.self) })
                {
                    return .tcp(host: master.host, port: master.port)
                }
                failures.append("\(sentinel): does not know \(settings.masterName)")
            } catch {
                failures.append(error.description)
            }
        }
        throw RedisBlockingError("no sentinel named the master (\(failures.joined(separator: "; ")))")
    }
}
