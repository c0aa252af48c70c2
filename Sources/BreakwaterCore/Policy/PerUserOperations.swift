// Operations whose answers held a `scope: per-user` type (`cache.types`, docs/SCHEMA.md): the scope
// is only known once an answer arrived, but the key is chosen before the fetch. So the first such
// answer to a shared-scope request is not stored (BYPASS `per-user-type`), goes to no other client,
// and its operation is remembered here; from then on its requests bypass the cache at once (no
// key, no lookup, no coalescing), unless a `scope: per-user` rule keys them by their credentials.
// With a fleet, what one proxy learns is shared through Redis (docs/FLEET.md): `onLearned` hears
// each new operation, and `adopt` takes the ones the other proxies learned.

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

    /// Called with each operation this process learned itself (not adopted): the fleet shares it.
    private let learned = LockedCallback<@Sendable (SHA256Digest, String?) -> Void>()

    package func remember(_ digest: SHA256Digest, operationName: String?) {
        guard insert(Operation(digest: digest, operationName: operationName)) else { return }
        learned.current?(digest, operationName)
    }

    /// Takes an operation another proxy of the fleet learned; not announced again.
    package func adopt(_ digest: SHA256Digest, operationName: String?) {
        insert(Operation(digest: digest, operationName: operationName))
    }

    /// Calls `handler` (from any thread) with each operation `remember` learns from now on.
    package func onLearned(_ handler: @escaping @Sendable (SHA256Digest, String?) -> Void) {
        learned.set(handler)
    }

    /// How many operations are known now.
    package var count: Int { operations.withLock { $0.count } }

    @discardableResult
    private func insert(_ operation: Operation) -> Bool {
        operations.withLock { operations in
            if operations.contains(operation) { return false }
            if operations.count >= capacity { operations.removeAll(keepingCapacity: true) }
            operations.insert(operation)
            return true
        }
    }

    /// An operation as the fleet shares it: the document's hex digest, a space and its name.
    package static func encode(_ digest: SHA256Digest, operationName: String?) -> String {
        digest.hex + (operationName.map { " " + $0 } ?? "")
    }

    /// The operation of a shared member; nil when it is not one.
    package static func decode(_ member: String) -> (SHA256Digest, String?)? {
        let (hex, name) = member.firstIndex(of: " ").map { (member[..<$0], String(member[member.index(after: $0)...])) }
            ?? (member[...], nil)
        guard let digest = SHA256Digest(hex: hex) else { return nil }
        return (digest, name)
    }

    package func contains(_ digest: SHA256Digest, operationName: String?) -> Bool {
        operations.withLock { $0.contains(Operation(digest: digest, operationName: operationName)) }
    }
}
