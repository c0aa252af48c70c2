// The rules of the fleet-wide fetch lease (docs/FLEET.md, "Leases"): how long a lease lives in
// Redis, when its holder renews it, how long a release is retried, and how long a waiter waits.
// A lease lives about one fetch's time, derived from the fetches this proxy saw, and is renewed
// by its holder while the fetch runs: a lease whose holder lost track of it (the SET or the
// release timed out, the process died) is gone within one term, not `origin.timeout`.

/// The term of the leases one event loop takes, learned from the fetches it made under them.
package struct LeaseTerm: Sendable, Equatable {
    /// Never shorter: a renewal sent at a third of the term must land before the term ends, even
    /// when its call takes all of `redis.timeout` (and the next one still would).
    package let floor: Duration
    /// Never longer: no fetch outlives `origin.timeout`.
    package let ceiling: Duration
    /// The last fetch durations seen, oldest first; at most `memory` of them.
    private var recent: [Duration] = []

    /// How many recent fetches the term is derived from.
    package static let memory = 32
    /// The term before any fetch was seen.
    package static let initialTerm = Duration.seconds(1)

    package init(redisTimeout: Duration, originTimeout: Duration) {
        ceiling = originTimeout
        floor = min(originTimeout, max(.milliseconds(250), redisTimeout * 3))
    }

    /// The term of a new lease: twice the slowest recent fetch, within `floor...ceiling`. Renewed,
    /// a lease outlives a fetch slower than that; unrenewed, it ends about one fetch later.
    package var term: Duration {
        let base = recent.max().map { $0 * 2 } ?? Self.initialTerm
        return min(ceiling, max(floor, base))
    }

    /// How often the holder extends its lease to a full term while its fetch runs.
    package var renewalInterval: Duration { term / 3 }

    /// A fetch made under a lease took `duration` (taken to released).
    package mutating func recordFetch(_ duration: Duration) {
        if recent.count == Self.memory { recent.removeFirst() }
        recent.append(max(.zero, duration))
    }

    /// Whether a release that got no answer is sent again, `sinceConfirmed` after Redis last
    /// confirmed the lease (taken or renewed): only while the lease may still be alive.
    package func retriesRelease(sinceConfirmed: Duration) -> Bool {
        sinceConfirmed < term
    }

    /// How long a proxy that lost the lease waits for the holder's entry: until the holder's
    /// fetch must be over (its deadline, carried by the lease), and never past `origin.timeout`.
    /// `holderDeadlineIn` is nil when the lease did not say.
    package func waitLimit(holderDeadlineIn: Duration?) -> Duration {
        guard let holderDeadlineIn else { return ceiling }
        return max(.zero, min(ceiling, holderDeadlineIn))
    }
}

/// What a lease holds in Redis: who took it (so that only the holder renews or releases it) and
/// the wall-clock millisecond its fetch must end by (so that no waiter waits past it).
package struct LeaseValue: Sendable, Equatable {
    /// The holding proxy's id and a number unique within it.
    package let holder: String
    package let deadlineMilliseconds: Int64

    package init(holder: String, deadlineMilliseconds: Int64) {
        self.holder = holder
        self.deadlineMilliseconds = deadlineMilliseconds
    }

    /// `holder deadline`, as stored.
    package var encoded: String { "\(holder) \(deadlineMilliseconds)" }

    /// The value read from Redis; nil when it is not one (an older proxy's plain id).
    package init?(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let space = text.lastIndex(of: " "), let deadline = Int64(text[text.index(after: space)...]) else {
            return nil
        }
        holder = String(text[..<space])
        deadlineMilliseconds = deadline
    }
}
