// A callback set once and called from any thread. Kept in a `Mutex` as a closure, it would be
// wrapped in one more reabstraction thunk at every `withLock` access (the closure passes through
// the generic `inout` and is stored back re-wrapped), so that each call runs through as many thunks
// as there were accesses before it, slower and slower until it overflows the caller's stack: a
// proxy of the soak crashed so (SIGSEGV on the guard page) after some 27,000 purges, each of which
// read the purge handler. Behind a class the stored value never changes.

import Synchronization

/// A callback behind a lock, set with `set` and read with `current`; nil until set.
package final class LockedCallback<Callback: Sendable>: Sendable {
    private final class Box: Sendable {
        let callback: Callback
        init(_ callback: Callback) { self.callback = callback }
    }

    private let box = Mutex<Box?>(nil)

    package init() {}

    package func set(_ callback: Callback) {
        box.withLock { $0 = Box(callback) }
    }

    /// The callback set last, or nil.
    package var current: Callback? {
        box.withLock { $0 }?.callback
    }
}
