// A shard's key index: an open-addressing hash table from a key's 32-bit hash to the 32-bit
// number of the slot that holds its entry (8 bytes a bucket, no per-key object or dictionary).

/// Slot numbers by key hash, with linear probing and backward-shift deletion (no tombstones).
///
/// A hash's home bucket is `hash * capacity >> 32` (Lemire's multiply-shift), so that the table
/// can grow by half instead of doubling: between half and three quarters full, where a doubling
/// table is between three eighths and three quarters (100k keys: 1.4 MB of buckets, not 2.1).
///
/// The table holds no keys: several keys may share a hash, so `firstSlot(hash:where:)` asks the
/// caller whether a candidate slot's entry is the one looked for. Each bucket keeps the hash it was
/// inserted under, so that growing and deleting never need the entries themselves.
package struct KeySlotTable {
    private struct Bucket {
        var slot: UInt32
        var hash: UInt32

        static let empty = Bucket(slot: KeySlotTable.emptySlot, hash: 0)
    }

    /// The slot number that marks an empty bucket; a slot number is always below it.
    package static let emptySlot = UInt32.max

    private var buckets: [Bucket] = []
    package private(set) var count = 0

    /// Buckets held (16, then half again at each growth; 0 before the first insert).
    package var capacity: Int { buckets.count }

    package init() {}

    /// The fewest buckets a table that holds anything has.
    private static let minimumCapacity = 16

    /// The slot of the first entry with `hash` that `matches`, or nil.
    @inline(__always)
    package func firstSlot(hash: UInt32, where matches: (UInt32) -> Bool) -> UInt32? {
        guard count > 0 else { return nil }
        var index = home(hash)
        while true {
            let bucket = buckets[index]
            if bucket.slot == Self.emptySlot { return nil }
            if bucket.hash == hash && matches(bucket.slot) { return bucket.slot }
            index = following(index)
        }
    }

    /// The bucket where a probe for `hash` starts.
    @inline(__always)
    private func home(_ hash: UInt32) -> Int {
        Int(truncatingIfNeeded: (UInt64(hash) &* UInt64(buckets.count)) >> 32)
    }

    /// The bucket after `index`, the first after the last.
    @inline(__always)
    private func following(_ index: Int) -> Int {
        index + 1 == buckets.count ? 0 : index + 1
    }

    /// How many buckets a probe walks from `start` to reach `end`, around the end if need be.
    @inline(__always)
    private func distance(from start: Int, to end: Int) -> Int {
        end >= start ? end - start : end + buckets.count - start
    }

    /// Adds `slot` under `hash` (the caller has made sure no entry of that key is present).
    package mutating func insert(slot: UInt32, hash: UInt32) {
        precondition(slot != Self.emptySlot, "slot numbers stay below UInt32.max")
        // At most three quarters full, so that a probe meets an empty bucket soon.
        if (count + 1) * 4 > buckets.count * 3 { grow() }
        place(Bucket(slot: slot, hash: hash))
        count += 1
    }

    /// Removes the bucket holding `slot` under `hash`; a slot not present is ignored.
    package mutating func remove(slot: UInt32, hash: UInt32) {
        guard count > 0 else { return }
        var index = home(hash)
        while buckets[index].slot != slot {
            if buckets[index].slot == Self.emptySlot { return }
            index = following(index)
        }
        // Backward shift: pull each later bucket of the run back into the hole if the hole lies
        // between its home bucket and where it sits, so that every probe still finds it.
        var hole = index
        var next = following(hole)
        while buckets[next].slot != Self.emptySlot {
            if distance(from: home(buckets[next].hash), to: next) >= distance(from: hole, to: next) {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = following(next)
        }
        buckets[hole] = .empty
        count -= 1
    }

    package mutating func removeAll() {
        buckets = []
        count = 0
    }

    /// Every (slot, hash) pair held, in bucket order (for consistency checks).
    package var pairs: [(slot: UInt32, hash: UInt32)] {
        buckets.filter { $0.slot != Self.emptySlot }.map { ($0.slot, $0.hash) }
    }

    private mutating func place(_ bucket: Bucket) {
        var index = home(bucket.hash)
        while buckets[index].slot != Self.emptySlot { index = following(index) }
        buckets[index] = bucket
    }

    private mutating func grow() {
        let old = buckets
        buckets = Array(repeating: .empty, count: max(Self.minimumCapacity, old.count + old.count / 2))
        for bucket in old where bucket.slot != Self.emptySlot { place(bucket) }
    }
}
