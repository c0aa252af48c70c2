// A bounded, thread-safe table of shared values: what many cache entries would each hold a copy
// of (their operation's fields, an identical tag list) is stored once and referenced by all.

import Synchronization

/// Values by key, made once and handed to every caller with an equal key.
///
/// Bounded: past `limit` keys the table starts again (values already handed out stay valid, they
/// are only no longer shared with newcomers), so distinct keys cannot grow it without end.
package final class InternTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let values = Mutex<[Key: Value]>([:])
    package let limit: Int

    package init(limit: Int) {
        self.limit = limit
    }

    /// The value stored for `key`, made by `make` if there is none yet.
    package func shared(_ key: Key, make: (Key) -> Value) -> Value {
        values.withLock { known in
            if let value = known[key] { return value }
            if known.count >= limit { known.removeAll() }
            let value = make(key)
            known[key] = value
            return value
        }
    }
}
