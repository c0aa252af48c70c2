// A growable run of log-line bytes written through a raw cursor: the writer of a line reserves
// room for its longest possible form once, then writes every field without a capacity check,
// and commits what it wrote. One per event loop for the access log; it never shrinks, so a loop
// at steady traffic allocates nothing once the buffer has grown to a batch's size.

/// Owned bytes with spare room at the end; moved, never copied.
package struct LogLineBuffer: ~Copyable, @unchecked Sendable {
    private var base: UnsafeMutablePointer<UInt8>
    /// Bytes written and committed.
    package private(set) var count = 0
    private var capacity: Int

    package init(capacity: Int = 4096) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    package var isEmpty: Bool { count == 0 }

    /// Where a line of at most `bytes` bytes may be written (grown first when needed); the writer
    /// then calls `commit(upTo:)` with where it stopped.
    package mutating func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < bytes { grow(toHold: count + bytes) }
        return base + count
    }

    /// Takes the bytes up to `end`, a position inside the room the last `reserve` gave.
    package mutating func commit(upTo end: UnsafeMutablePointer<UInt8>) {
        count = end - base
        assert(count <= capacity, "a log line overran its reservation")
    }

    /// Appends `bytes` (lines written elsewhere: records, tests).
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        let end = reserve(bytes.count)
        end.initialize(from: start.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        commit(upTo: end + bytes.count)
    }

    /// Forgets the bytes, keeping the room up to `limit` bytes (one huge line, a long operation
    /// name, does not hold its room for good).
    package mutating func removeAll(keepingAtMost limit: Int = .max) {
        count = 0
        guard capacity > limit else { return }
        base.deallocate()
        capacity = Swift.max(limit, 64)
        base = .allocate(capacity: capacity)
    }

    /// The room held, written or not.
    package var roomHeld: Int { capacity }

    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    private mutating func grow(toHold needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
