// A fleet's cache snapshot brought up to date before the proxy serves it (docs/FLEET.md, "No
// purge lost"; docs/OPERATING.md, "The cache across restarts"): the purges the fleet made since the
// snapshot's purge-log position, read page by page, and whether its entries may be kept at all.
// Pure: the server reads the log and the generation from Redis and carries the outcome out.

/// Reads the purge log from a snapshot's position and decides what its entries become: kept once
/// the purges made since are applied to them, or dropped when that cannot be known.
package struct CacheSnapshotCatchUp: Sendable {
    /// What the server does next.
    package enum Step: Sendable, Equatable {
        /// Read the log from this id, inclusive (`XRANGE <id> + COUNT <pageSize>`), and call `read`.
        case read(from: PurgeLogID)
        /// The log is read (or cannot be): ask `outcome(fleetGeneration:)`.
        case done
    }

    /// What becomes of the entries loaded from the snapshot.
    package enum Outcome: Sendable, Equatable {
        /// Keep them once these purges (made since the snapshot, in the log's order) are applied;
        /// the purge-log follower goes on from `through`, the last entry read.
        case replay([PurgeRequest], through: PurgeLogID)
        /// Drop them all: what was purged since cannot be known.
        case drop(Reason)
    }

    /// Why the entries of a snapshot are dropped.
    package enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The log no longer reaches back to the snapshot's position, or the generation moved.
        case log(PurgeLogFollower.DropReason)
        /// Redis could not be read before the deadline (unreachable, refusing, too slow).
        case unread(String)

        package var description: String {
            switch self {
            case .log(let reason): "\(reason)"
            case .unread(let why): "the purge log could not be read before serving: \(why)"
            }
        }
    }

    /// The last purge-log entry the snapshot's writer had applied.
    package let position: PurgeLogID
    /// The fleet's generation when the snapshot was written.
    package let generation: UInt64
    /// Entries asked for per read.
    package let pageSize: Int

    /// The last entry read; the next page starts there (inclusive), and must start with it.
    private var lastRead: PurgeLogID
    private var purges: [PurgeRequest] = []
    private var failure: Reason?

    /// Starts from `header`'s position; nil when it holds none (nothing can be replayed).
    package init?(header: CacheSnapshotHeader, pageSize: Int = 500) {
        guard let position = header.purgeLogPosition else { return nil }
        self.position = position
        generation = header.generation
        self.pageSize = max(2, pageSize)
        lastRead = position
    }

    /// The first read.
    package var start: Step { .read(from: position) }

    /// A page of the log, read from the last entry read, inclusive. Every purge after it is kept
    /// for replay, this proxy's own included (the process that made them is gone; applying one
    /// twice only costs a miss).
    package mutating func read(_ entries: [PurgeLogEntry]) -> Step {
        guard failure == nil else { return .done }
        guard let first = entries.first, first.id == lastRead else {
            failure =
                if let first = entries.first, first.id > lastRead {
                    .log(.logTrimmed(first: first.id, applied: lastRead))
                } else {
                    .log(.logLost(applied: lastRead))
                }
            return .done
        }
        for entry in entries.dropFirst() {
            lastRead = entry.id
            if let message = entry.message { purges.append(message.purge) }
        }
        return entries.count >= pageSize ? .read(from: lastRead) : .done
    }

    /// Redis did not answer in time, or refused: nothing loaded may be kept.
    package mutating func failed(_ why: String) {
        if failure == nil { failure = .unread(why) }
    }

    /// The decision, once the log is read and the fleet's generation (`bw:gen`, 0 when missing)
    /// is known; nil when it could not be read.
    package func outcome(fleetGeneration: UInt64?) -> Outcome {
        if let failure { return .drop(failure) }
        guard let fleetGeneration else { return .drop(.unread("the fleet's generation could not be read")) }
        guard fleetGeneration == generation else {
            return .drop(.log(.generationMoved(snapshot: generation, fleet: fleetGeneration)))
        }
        return .replay(purges, through: lastRead)
    }
}
