// A connection's read buffer: bytes arrive at the end, the parser reads them in place, and
// the bytes it no longer needs are dropped from the front.

/// A growable byte buffer owned by one connection (one allocation, reused for every request).
/// Aligned to 8: a larger alignment makes the Swift runtime take posix_memalign, not malloc.
final class ReadBuffer {
    private var storage: UnsafeMutableRawBufferPointer
    private(set) var count = 0
    /// The buffer never grows past this (head limit plus room for a body's start).
    let maxCapacity: Int

    init(capacity: Int = 4096, maxCapacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 8)
        self.maxCapacity = max(capacity, maxCapacity)
    }

    deinit { storage.deallocate() }

    var capacity: Int { storage.count }

    /// The free space after the bytes held, grown (doubling, up to `maxCapacity`) when less
    /// than `minimum` is free; empty when the buffer is full at its largest.
    func freeSpace(minimum: Int = 2048) -> UnsafeMutableRawBufferPointer {
        if storage.count - count < minimum && storage.count < maxCapacity {
            let grown = UnsafeMutableRawBufferPointer.allocate(
                byteCount: min(maxCapacity, max(storage.count * 2, count + minimum)), alignment: 8)
            grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
            storage.deallocate()
            storage = grown
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[count...])
    }

    func didFill(_ bytes: Int) { count += bytes }

    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        body(UnsafeRawBufferPointer(rebasing: storage[0..<count]).bindMemory(to: UInt8.self))
    }

    /// Drops the first `bytes` bytes, moving the rest to the front.
    func discard(_ bytes: Int) {
        guard bytes > 0 else { return }
        let rest = count - bytes
        if rest > 0, let base = storage.baseAddress {
            base.copyMemory(from: base + bytes, byteCount: rest)
        }
        count = rest
    }

    /// Shrinks back to `capacity` bytes when empty and large (a big request passed).
    func shrinkIfIdle(to capacity: Int = 4096) {
        guard count == 0, storage.count > 4 * capacity else { return }
        storage.deallocate()
        storage = .allocate(byteCount: capacity, alignment: 8)
    }
}
