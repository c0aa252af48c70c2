// A value several threads (test clients, event loops) read and change at once.

import Foundation

/// A lock-guarded value for flags and counters shared with closures that escape.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func load() -> Value { lock.withLock { value } }

    func store(_ newValue: Value) { lock.withLock { value = newValue } }

    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&value) } }
}
