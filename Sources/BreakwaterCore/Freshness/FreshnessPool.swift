// The fleet's pool of freshness samples in Redis (docs/FRESHNESS.md, docs/FLEET.md): each proxy
// appends its samples to a bounded list per operation and counts them; each reads the pool back
// into a ledger, so the estimates cover the whole fleet's samples. Here: the value format and
// the ledger made from what Redis holds; the I/O is RedisFreshnessPool's.

/// Encoding of pooled samples and the ledger read back from the pool.
package enum FreshnessPool {
    /// Samples kept per operation in the pool (the estimator's window).
    package static let kept = 4096
    /// Operations read back from the pool, at most.
    package static let maxOperations = 50

    /// `"<age ms> <0|1> <ttl ms>"`: small, and readable with redis-cli.
    package static func encode(_ sample: FreshnessSample) -> String {
        "\(milliseconds(sample.age)) \(sample.changed ? 1 : 0) \(milliseconds(sample.ttl))"
    }

    /// The age, change and TTL of one encoded sample; nil for anything else.
    package static func decode(_ text: String) -> (age: Duration, changed: Bool, ttl: Duration)? {
        let parts = text.split(separator: " ")
        guard parts.count == 3, let age = Int64(parts[0]), let ttl = Int64(parts[2]), age >= 0, ttl >= 0,
            parts[1] == "0" || parts[1] == "1"
        else { return nil }
        return (.milliseconds(age), parts[1] == "1", .milliseconds(ttl))
    }

    /// The ledger of the pooled samples: per operation, the all-time counts and the encoded
    /// samples (oldest first); undecodable values are skipped.
    package static func ledger(
        _ operations: [(name: String, samples: Int, changed: Int, values: [String])]
    ) -> FreshnessLedger {
        var ledger = FreshnessLedger(maxOperations: maxOperations, kept: kept)
        for operation in operations.prefix(maxOperations) {
            let decoded = operation.values.compactMap(decode)
            ledger.adopt(
                operation.name, samples: max(operation.samples, decoded.count), changed: operation.changed,
                observations: decoded.map { (StatsReport.seconds($0.age), $0.changed) },
                currentTTLSeconds: decoded.last.map { StatsReport.seconds($0.ttl) })
        }
        return ledger
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        Int64((StatsReport.seconds(duration) * 1000).rounded())
    }
}
