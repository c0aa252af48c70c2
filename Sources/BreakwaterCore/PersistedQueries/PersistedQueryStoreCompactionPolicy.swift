// When the persisted-query store's file is rewritten with only the documents the registry holds,
// so that the file stays within about twice `persisted_queries.max_bytes` (docs/OPERATING.md,
// "The persisted-query store").

/// Decides when the registry's store file is due for compaction.
///
/// Every registration is appended to the file, also those the registry has since evicted, so the
/// file grows without bound unless it is rewritten with the live set. It is due once it is larger
/// than twice the larger of `maxBytes` and the live set's size on disk at the last compaction (a
/// live set of many small documents can take more room on disk than `maxBytes`: without that term
/// it would be rewritten at every append), or once it holds more than twice `maxEntries` records.
/// Either way a compaction follows at least as many appended bytes or records as it writes, so
/// compaction costs each registration a constant share.
///
/// A pure value: the registry keeps one and asks it after each append.
package struct PersistedQueryStoreCompactionPolicy: Sendable, Equatable {
    /// The registry's bound on its documents' summed size (`persisted_queries.max_bytes`).
    package let maxBytes: Int
    /// The registry's bound on its documents (`persisted_queries.max_entries`).
    package let maxEntries: Int
    /// The live set's size on disk when the file was last compacted or loaded.
    package private(set) var liveBytes: Int
    /// After a failed compaction, the file size past which the next one is tried: a full disk is
    /// not rewritten at every append.
    package private(set) var retryAboveBytes = 0

    package init(maxBytes: Int, maxEntries: Int, liveBytes: Int) {
        self.maxBytes = max(0, maxBytes)
        self.maxEntries = max(1, maxEntries)
        self.liveBytes = max(0, liveBytes)
    }

    /// The file size beyond which compaction is due.
    package var byteLimit: Int { Self.twice(max(maxBytes, liveBytes)) }

    /// The record count beyond which compaction is due.
    package var recordLimit: Int { Self.twice(maxEntries) }

    /// Whether a file of `fileBytes` holding `records` records should be compacted now.
    package func isDue(fileBytes: Int, records: Int) -> Bool {
        (fileBytes > byteLimit || records > recordLimit) && fileBytes > retryAboveBytes
    }

    /// Records a compaction that left the file at `fileBytes`: the live set's new size on disk.
    package mutating func compacted(fileBytes: Int) {
        liveBytes = fileBytes
        retryAboveBytes = 0
    }

    /// Records a compaction that failed with the file at `fileBytes`: the next try waits until
    /// the file has grown by half the byte limit again.
    package mutating func failed(fileBytes: Int) {
        let (sum, overflow) = fileBytes.addingReportingOverflow(byteLimit / 2)
        retryAboveBytes = overflow ? .max : sum
    }

    private static func twice(_ value: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: 2)
        return overflow ? .max : product
    }
}
