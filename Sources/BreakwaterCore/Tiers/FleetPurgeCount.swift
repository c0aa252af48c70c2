// How many purges the fleet's tier had applied when a fetch looked in it (docs/FLEET.md, "No
// purge lost"). A fetch on one proxy can begin before another proxy's purge and end after it:
// its answer, read before the change the purge announced, must not be written to the tier the
// purge just cleared. The tier gives the count with each lookup, and the write names it: the tier
// refuses it when a purge counted after it reached one of the entry's indexes.

/// The fleet's purge count as one lookup of the tier read it.
package struct FleetPurgeCount: Sendable, Equatable {
    package let value: UInt64

    package init(_ value: UInt64) { self.value = value }
}
