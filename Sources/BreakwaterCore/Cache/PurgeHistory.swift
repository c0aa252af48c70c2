// The purges a store applied lately, numbered, so that a fetch that began before a purge does not
// store an answer the purge would have removed (docs/reference/caching.md, "Purges"): the answer
// was read from the origin before the change the purge announced, and stored after the purge it
// would be served as fresh for its whole TTL.

import Synchronization

/// The last purges applied, each with its number; read lock-free when none came since.
package final class PurgeHistory: Sendable {
    /// The purges kept: a fetch that began before the oldest of them cannot be told apart, and
    /// counts as reached.
    package static let capacity = 256

    private let latest = Atomic<UInt64>(0)
    private let recent = Mutex<[(number: UInt64, selector: PurgeSelector)]>([])

    package init() {}

    /// The number of the last purge applied (0 before any): a fetch reads it when it begins.
    package var current: UInt64 { latest.load(ordering: .acquiring) }

    /// Notes a purge; call before it is applied, so that a fetch storing meanwhile sees it.
    package func record(_ selector: PurgeSelector) {
        recent.withLock { recent in
            let number = (recent.last?.number ?? 0) + 1
            recent.append((number, selector))
            if recent.count > Self.capacity { recent.removeFirst(recent.count - Self.capacity) }
            latest.store(number, ordering: .releasing)
        }
    }

    /// Whether a purge recorded after `since` reaches an entry of `operationName`, `digest` and
    /// `tags` (or might: one older than those kept).
    package func reaches(
        since: UInt64, operationName: String?, digest: SHA256Digest, tags: [String]
    ) -> Bool {
        guard current != since else { return false }
        return recent.withLock { recent in
            guard let oldest = recent.first?.number, oldest <= since + 1 else { return true }
            return recent.contains { purge in
                guard purge.number > since else { return false }
                switch purge.selector {
                case .all: return true
                case .operation(let name): return name == operationName
                case .document(let purged): return purged == digest
                case .tag(let tag): return tags.contains(tag)
                }
            }
        }
    }
}
