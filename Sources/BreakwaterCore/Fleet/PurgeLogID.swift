// The id of one entry of the purge log, a Redis stream: `<milliseconds>-<sequence>`, ordered by
// both parts (Redis streams, "Entry IDs"). A proxy remembers the last one it applied.

/// A Redis stream entry id.
package struct PurgeLogID: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var milliseconds: UInt64
    package var sequence: UInt64

    package init(milliseconds: UInt64, sequence: UInt64) {
        (self.milliseconds, self.sequence) = (milliseconds, sequence)
    }

    /// Parses `1700000000000-3`; nil for anything else.
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let milliseconds = UInt64(parts[0]), let sequence = UInt64(parts[1]) else { return nil }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    package var description: String { "\(milliseconds)-\(sequence)" }

    package static func < (lhs: PurgeLogID, rhs: PurgeLogID) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }
}

/// One entry read back from the purge log: its id and the purge it holds (nil for the entry that
/// starts a log, or one this version cannot read).
package struct PurgeLogEntry: Sendable, Equatable {
    package var id: PurgeLogID
    package var message: PurgeMessage?

    package init(id: PurgeLogID, message: PurgeMessage?) {
        (self.id, self.message) = (id, message)
    }
}
