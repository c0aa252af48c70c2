// The fleet tier's figures in `/stats` (the `redis` block, docs/FLEET.md) and `/metrics`
// (`breakwater_redis_*`), added to the report's renderings when the proxy has a Redis tier.

/// What the fleet tier reports: whether Redis answers, and its figures.
package struct RedisStatus: Sendable, Equatable {
    /// At least one loop's connection answers.
    package var connected: Bool
    package var statistics: RedisStatistics
    /// Loops whose command connection answers, of `connections` (one per loop).
    package var readyConnections = 0
    package var connections = 0
    /// The purge subscriber is subscribed: the other proxies' purges reach this one.
    package var subscribed = false
    /// The Redis this proxy talks to now (`host:port`, or the socket path).
    package var master = ""
    /// Times Redis Sentinel moved the master since start (`redis.sentinels`).
    package var failovers = 0
    /// The purge-everything generation cache keys live under now.
    package var generation: UInt64 = 0
    /// This proxy's purges waiting for Redis to apply them.
    package var purgesPending = 0

    package init(connected: Bool, statistics: RedisStatistics) {
        (self.connected, self.statistics) = (connected, statistics)
    }
}

extension StatsReport {
    /// `json()` with a `redis` member when there is a fleet tier.
    package func json(redis: RedisStatus?) -> [UInt8] {
        var bytes = json()
        guard let redis, bytes.last == UInt8(ascii: "}") else { return bytes }
        bytes.removeLast()
        let figures = redis.statistics
        var member = ",\"redis\":{\"connected\":\(redis.connected)"
        member += ",\"connections\":\(redis.connections),\"connections_ready\":\(redis.readyConnections)"
        member += ",\"subscribed\":\(redis.subscribed)"
        member += ",\"l2_hits\":\(figures.l2Hits),\"l2_misses\":\(figures.l2Misses)"
        member += ",\"registry_hits\":\(figures.registryHits),\"errors\":\(figures.errors)"
        member += ",\"timeouts\":\(figures.timeouts),\"remote_purges\":\(figures.remotePurges)"
        member += ",\"rejected\":\(figures.rejected),\"generation\":\(redis.generation)"
        member += ",\"purges_published\":\(figures.purgesPublished),\"purges_pending\":\(redis.purgesPending)"
        member += ",\"purges_applied\":\(figures.purgesApplied),\"purges_replayed\":\(figures.purgesReplayed)"
        member += ",\"cache_drops\":\(figures.cacheDrops),\"documents_written_back\":\(figures.documentsWrittenBack)"
        member += ",\"master\":"
        bytes.append(contentsOf: member.utf8)
        JSONWriter.quotedString(redis.master, into: &bytes)
        bytes.append(contentsOf: ",\"failovers\":\(redis.failovers),\"lease_waits\":\(figures.leaseWaits)".utf8)
        bytes.append(contentsOf: ",\"lease_wait_ms\":".utf8)
        DecimalText.append(Self.milliseconds(figures.leaseWaitTime), fractionDigits: 3, into: &bytes)
        bytes.append(contentsOf: ",\"latency_ms\":{".utf8)
        for (index, (key, p)) in [("p50", 50.0), ("p99", 99)].enumerated() {
            bytes.append(contentsOf: ((index == 0 ? "" : ",") + "\"\(key)\":").utf8)
            DecimalText.append(Self.milliseconds(figures.latency.percentile(p)), fractionDigits: 3, into: &bytes)
        }
        bytes.append(contentsOf: "}}}".utf8)
        return bytes
    }

    /// `prometheus()` followed by the `breakwater_redis_*` families when there is a fleet tier.
    package func prometheus(redis: RedisStatus?) -> String {
        let text = prometheus()
        guard let redis else { return text }
        let figures = redis.statistics
        var lines = ""
        let families: [(String, String, String, Int)] = [
            ("breakwater_redis_up", "gauge", "Whether Redis answers (1) or the proxy serves from local memory only (0).",
             redis.connected ? 1 : 0),
            ("breakwater_redis_connections_ready", "gauge", "Event loops whose Redis connection answers.",
             redis.readyConnections),
            ("breakwater_redis_subscribed", "gauge",
             "Whether the purge subscriber is subscribed (1): the other proxies' purges reach this one.",
             redis.subscribed ? 1 : 0),
            ("breakwater_redis_l2_hits_total", "counter", "Local misses answered from the shared cache.", figures.l2Hits),
            ("breakwater_redis_l2_misses_total", "counter", "Local misses the shared cache could not answer.",
             figures.l2Misses),
            ("breakwater_redis_registry_hits_total", "counter", "Documents unknown locally found in Redis.",
             figures.registryHits),
            ("breakwater_redis_errors_total", "counter", "Redis error replies and undecodable values.", figures.errors),
            ("breakwater_redis_timeouts_total", "counter", "Redis calls that missed redis.timeout.", figures.timeouts),
            ("breakwater_redis_remote_purges_total", "counter", "Purges received from other proxies.",
             figures.remotePurges),
            ("breakwater_redis_rejected_total", "counter",
             "Entries and documents refused for a missing or wrong signature (redis.signing_key), served as misses.",
             figures.rejected),
            ("breakwater_redis_lease_waits_total", "counter",
             "Waits for another proxy's fetch of the same key (the fleet-wide lease was taken).", figures.leaseWaits),
            ("breakwater_redis_failovers_total", "counter", "Times Redis Sentinel moved the master since start.",
             redis.failovers),
            ("breakwater_redis_generation", "gauge", "The purge-everything generation cache keys live under.",
             Int(clamping: redis.generation)),
            ("breakwater_redis_purges_published_total", "counter",
             "This proxy's purges applied in Redis and appended to the purge log.", figures.purgesPublished),
            ("breakwater_redis_purges_pending", "gauge", "This proxy's purges waiting for Redis to apply them.",
             redis.purgesPending),
            ("breakwater_redis_purges_applied_total", "counter",
             "Other proxies' purges applied here, from the channel or the purge log.", figures.purgesApplied),
            ("breakwater_redis_purges_replayed_total", "counter",
             "Other proxies' purges read from the purge log after a gap in the subscription.", figures.purgesReplayed),
            ("breakwater_redis_cache_drops_total", "counter",
             "Times the whole local cache was dropped because the purge log no longer reached back.",
             figures.cacheDrops),
            ("breakwater_redis_documents_written_back_total", "counter",
             "Registry documents written back to a Redis that started empty.", figures.documentsWrittenBack),
        ]
        for (name, kind, help, value) in families {
            lines += "# HELP \(name) \(help)\n# TYPE \(name) \(kind)\n\(name) \(value)\n"
        }
        var waited: [UInt8] = []
        DecimalText.append(Self.seconds(figures.leaseWaitTime), fractionDigits: 6, into: &waited)
        lines += "# HELP breakwater_redis_lease_wait_seconds_total Time spent waiting for another proxy's fetch.\n"
        lines += "# TYPE breakwater_redis_lease_wait_seconds_total counter\n"
        lines += "breakwater_redis_lease_wait_seconds_total \(String(decoding: waited, as: UTF8.self))\n"
        var address = ""
        for character in redis.master {
            switch character {
            case "\\": address += "\\\\"
            case "\"": address += "\\\""
            case "\n": address += "\\n"
            default: address.append(character)
            }
        }
        lines += "# HELP breakwater_redis_master_info The Redis this proxy talks to (the Sentinel master).\n"
        lines += "# TYPE breakwater_redis_master_info gauge\n"
        lines += "breakwater_redis_master_info{address=\"\(address)\"} 1\n"
        let name = "breakwater_redis_duration_seconds"
        lines += "# HELP \(name) Round-trip time of answered Redis calls.\n# TYPE \(name) histogram\n"
        let counts = figures.latency.cumulativeCounts(upperBounds: Self.durationBuckets.map(\.bound))
        for (bucket, count) in zip(Self.durationBuckets, counts) {
            lines += "\(name)_bucket{le=\"\(bucket.label)\"} \(count)\n"
        }
        lines += "\(name)_bucket{le=\"+Inf\"} \(figures.latency.count)\n"
        var sum: [UInt8] = []
        DecimalText.append(Self.seconds(figures.latency.sum), fractionDigits: 6, into: &sum)
        lines += "\(name)_sum \(String(decoding: sum, as: UTF8.self))\n\(name)_count \(figures.latency.count)\n"
        return text + lines
    }
}
