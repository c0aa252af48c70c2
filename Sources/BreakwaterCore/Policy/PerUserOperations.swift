// Operations whose answers held a `scope: per-user` type (`cache.types`, docs/SCHEMA.md): the scope
// is only known once an answer arrived, but the key is chosen before the fetch. So the first such
// answer to a shared-scope request is not stored (BYPASS `per-user-type`), goes to no other client,
// and its operation is remembered here; from then on its requests bypass the cache at once (no
// key, no lookup, no coalescing), unless a `scope: per-user` rule keys them by their credentials.

import Synchronization

/// Document hash and operation name of the operations seen answering a per-user type.
package final class PerUserOperations: Sendable {
    private struct Operation: Hashable {
        let digest: SHA256Digest
        let operationName: String?
    }

    /// Operations remembered; beyond it the set starts again empty (each costs one more BYPASS).
    package let capacity: Int
    private let operations = Mutex(Set<Operation>())

    package init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    package func remember(_ digest: SHA256Digest, operationName: String?) {
        operations.withLock { operations in
            if operations.count >= capacity { operations.removeAll(keepingCapacity: true) }
            operations.insert(Operation(digest: digest, operationName: operationName))
        }
    }

    package func contains(_ digest: SHA256Digest, operationName: String?) -> Bool {
        operations.withLock { $0.contains(Operation(digest: digest, operationName: operationName)) }
    }
}
