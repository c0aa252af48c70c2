// The cache snapshot's figures (docs/reference/admin.md, `snapshot`): what the start loaded and
// what the writes at stop or takeover did, for `/stats`, `/metrics` and the dashboard.

/// The last load and the writes of the cache snapshot (`cache.snapshot`).
package struct SnapshotFigures: Sendable, Equatable {
    /// Entries the start loaded.
    package var loaded = 0
    /// Damaged records the start passed over.
    package var skipped = 0
    /// The loaded entries' cost.
    package var bytes = 0
    /// How long the load took.
    package var took = Duration.zero
    /// When the loaded snapshot was written, on the wall clock; nil when none was loaded.
    package var writtenAt: WallClockTime?
    /// Entries the last successful write wrote.
    package var writtenEntries = 0
    /// Writes that failed (disk full, read-only folder, a foreign file at the path).
    package var writeFailures = 0

    package init() {}

    /// `writtenAt` in Unix seconds, for the renderings.
    var writtenAtSeconds: Double? {
        writtenAt.map { Double($0.millisecondsSinceEpoch) / 1_000 }
    }
}
