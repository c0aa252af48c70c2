// What few cache entries have (a gzip form, a wall-clock instant far from the others), kept
// beside them instead of in a word of every entry: at 1 KiB answers, 8 bytes an entry is 0.8 %
// of the cache's memory.

import Synchronization

/// Values by object, for objects that remove theirs when they go (`removeValue(for:)` in deinit).
///
/// Striped by the object's address, so that two threads seldom wait for one lock; `isEmpty` lets
/// an object that never had a value leave without taking a lock.
package final class EntrySideTable<Value: Sendable>: Sendable {
    private final class Stripe: Sendable {
        let values = Mutex<[ObjectIdentifier: Value]>([:])
    }

    private let stripes = (0..<16).map { _ in Stripe() }
    private let count = Atomic<Int>(0)

    package init() {}

    private func stripe(_ object: ObjectIdentifier) -> Stripe {
        // Allocations are 16-byte aligned: the bits above those.
        stripes[Int((UInt(bitPattern: object) >> 4) & 15)]
    }

    /// True while no object has a value here (read before a lock is worth taking).
    package var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    package func value(for object: AnyObject) -> Value? {
        value(for: ObjectIdentifier(object))
    }

    /// The value stored for the object `identifier` names (which may be gone).
    package func value(for identifier: ObjectIdentifier) -> Value? {
        stripe(identifier).values.withLock { $0[identifier] }
    }

    /// `object`'s value: the one stored already if there is one, else `value`, stored now.
    package func storeIfAbsent(_ value: Value, for object: AnyObject) -> Value {
        stripe(ObjectIdentifier(object)).values.withLock { values in
            if let stored = values[ObjectIdentifier(object)] { return stored }
            values[ObjectIdentifier(object)] = value
            count.add(1, ordering: .releasing)
            return value
        }
    }

    /// Forgets `object`'s value, if any (its deinit calls this: its identifier may be reused).
    package func removeValue(for object: AnyObject) {
        guard !isEmpty else { return }
        stripe(ObjectIdentifier(object)).values.withLock { values in
            if values.removeValue(forKey: ObjectIdentifier(object)) != nil { count.subtract(1, ordering: .releasing) }
        }
    }
}
