// What `ProxyStack.loadSnapshot()` and `writeSnapshot()` did (docs/OPERATING.md, "The cache
// across restarts"), as values the caller logs: the start, the stop and a takeover each log them
// the same way.

import BreakwaterCore
import Foundation
import Logging

/// The outcome of loading the cache snapshot at start.
package enum SnapshotLoadOutcome: Sendable, Equatable {
    /// `cache.snapshot` is "".
    case off
    /// No file at the path yet (a first start): the cache starts empty.
    case noFile(path: String)
    /// The file was read: what came back (nothing, with `refusal` set, when a fleet cannot replay).
    case loaded(CacheSnapshotLoad, path: String, took: Duration)
    /// The file could not be read, or is not a snapshot: the cache starts empty.
    case failed(CacheSnapshotError, took: Duration)

    /// One line: notice when entries came back, warning when the file was refused or damaged.
    package func log(_ logger: Logger) {
        switch self {
        case .off:
            return
        case .noFile(let path):
            logger.info("cache snapshot: none yet, starting empty", metadata: ["snapshot.path": "\(path)"])
        case .loaded(let load, let path, let took):
            var metadata: Logger.Metadata = [
                "snapshot.path": "\(path)", "snapshot.written_at": "\(Self.text(load.header.writtenAt))",
                "snapshot.loaded": .stringConvertible(load.loaded),
                "snapshot.skipped": .stringConvertible(load.skipped),
                "snapshot.expired": .stringConvertible(load.expired),
                "snapshot.over_budget": .stringConvertible(load.overBudget),
                "snapshot.replayed": .stringConvertible(load.replayed),
                "snapshot.bytes": .stringConvertible(load.bytes), "snapshot.took_ms": "\(Self.milliseconds(took))",
            ]
            if let refusal = load.refusal {
                metadata["snapshot.reason"] = "\(refusal)"
                logger.warning("cache snapshot not loaded: \(refusal)", metadata: metadata)
            } else if load.skipped > 0 {
                let message =
                    "cache snapshot loaded \(load.loaded) entries written at \(Self.text(load.header.writtenAt)); "
                    + "\(load.skipped) damaged records skipped"
                logger.warning("\(message)", metadata: metadata)
            } else {
                logger.notice(
                    "cache snapshot loaded \(load.loaded) entries written at \(Self.text(load.header.writtenAt))",
                    metadata: metadata)
            }
        case .failed(let error, _):
            logger.error(
                "cache snapshot not loaded, starting empty: \(error)", metadata: ["snapshot.path": "\(error.path)"])
        }
    }

    static func text(_ time: WallClockTime) -> String {
        Date(timeIntervalSince1970: Double(time.millisecondsSinceEpoch) / 1_000).ISO8601Format()
    }

    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

/// The outcome of writing the cache snapshot (at stop after the drain, or on a takeover).
package enum SnapshotWriteOutcome: Sendable, Equatable {
    /// `cache.snapshot` is "".
    case off
    case written(CacheSnapshotWrite, path: String, took: Duration)
    /// Disk full, a read-only folder, a foreign file at the path: nothing was replaced.
    case failed(CacheSnapshotError, took: Duration)

    /// One line: notice when written, error when not.
    package func log(_ logger: Logger) {
        switch self {
        case .off:
            return
        case .written(let write, let path, let took):
            logger.notice(
                "cache snapshot written: \(write.entries) entries",
                metadata: [
                    "snapshot.path": "\(path)", "snapshot.entries": .stringConvertible(write.entries),
                    "snapshot.bytes": .stringConvertible(write.bytes),
                    "snapshot.left_out": .stringConvertible(write.leftOut),
                    "snapshot.took_ms": "\(SnapshotLoadOutcome.milliseconds(took))",
                ])
        case .failed(let error, _):
            logger.error("cache snapshot not written: \(error)", metadata: ["snapshot.path": "\(error.path)"])
        }
    }
}
