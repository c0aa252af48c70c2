// The samples of every operation, bounded (docs/FRESHNESS.md): all-time counts, and the latest
// `kept` observations per operation for the estimate, so memory stays fixed and the estimate
// follows a change of behaviour.

/// Freshness samples per operation.
package struct FreshnessLedger: Sendable, Equatable {
    /// One operation's samples.
    package struct Operation: Sendable, Equatable {
        package var samples = 0
        package var changed = 0
        /// The TTL of the latest sampled entry, in seconds.
        package var currentTTLSeconds: Double?
        /// What that TTL was decided from besides the settings; nil when not known (a row read
        /// from the fleet's pool).
        package var latestTTLBasis: TTLBasis?
        /// The latest observations, a ring of at most `kept` (ages in seconds, single precision:
        /// a fraction of a millisecond at the ages TTLs have, and half the memory).
        package var ages: [Float] = []
        package var changes: [Bool] = []
        var next = 0

        mutating func record(age: Double, changed: Bool, kept: Int) {
            if ages.count < kept {
                ages.append(Float(age))
                changes.append(changed)
            } else {
                ages[next] = Float(age)
                changes[next] = changed
                next = (next + 1) % kept
            }
        }

        /// The observations kept, for the estimator.
        package var observations: [FreshnessEstimate.Observation] {
            zip(ages, changes).map { (age: Double($0), changed: $1) }
        }
    }

    /// Operations with their own row; samples of others are recorded under `other`.
    package let maxOperations: Int
    /// Observations kept per operation.
    package let kept: Int
    package private(set) var operations: [String: Operation] = [:]

    /// The row that takes the operations beyond `maxOperations`.
    package static let other = "other"

    /// Observations kept per operation by default: enough that the 95 % interval of a 0.99
    /// target is narrow (docs/FRESHNESS.md, "How many samples").
    package static let defaultKept = 16_384

    package init(maxOperations: Int = 50, kept: Int = defaultKept) {
        self.maxOperations = maxOperations
        self.kept = max(1, kept)
    }

    package mutating func record(_ sample: FreshnessSample) {
        let name =
            operations[sample.operationName] != nil || operations.count < maxOperations
            ? sample.operationName : Self.other
        var row = operations[name] ?? Operation()
        row.samples += 1
        if sample.changed { row.changed += 1 }
        row.currentTTLSeconds = StatsReport.seconds(sample.ttl)
        row.latestTTLBasis = sample.ttlBasis
        row.record(age: StatsReport.seconds(sample.age), changed: sample.changed, kept: kept)
        operations[name] = row
    }

    /// Takes `name`'s row as read from elsewhere (the fleet's pool), replacing this ledger's.
    package mutating func adopt(
        _ name: String, samples: Int, changed: Int, observations: [FreshnessEstimate.Observation],
        currentTTLSeconds: Double?
    ) {
        var row = Operation()
        row.samples = samples
        row.changed = changed
        row.currentTTLSeconds = currentTTLSeconds
        for observation in observations.suffix(kept) {
            row.record(age: observation.age, changed: observation.changed, kept: kept)
        }
        operations[name] = row
    }

    /// The estimate of every operation for `target`, by name, each at the TTL `currentTTL` gives
    /// its row (by default the TTL of its latest sampled entry).
    package func estimates(
        target: Double, currentTTL: (_ name: String, _ row: Operation) -> Double? = { $1.currentTTLSeconds }
    ) -> [String: FreshnessEstimate] {
        Dictionary(
            uniqueKeysWithValues: operations.map { name, row in
                (
                    name,
                    FreshnessEstimate(
                        observations: row.observations, samples: row.samples, changed: row.changed,
                        currentTTLSeconds: currentTTL(name, row), target: target)
                )
            })
    }
}
