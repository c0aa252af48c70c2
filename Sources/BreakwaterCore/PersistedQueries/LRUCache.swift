// A bounded map that forgets the least recently used key first: the eviction order of the
// persisted-query registry (`persisted_queries.max_entries`, SPEC section 2).

/// A fixed-capacity map that evicts its least recently used entry to make room for a new one.
///
/// Every operation is O(1). A dictionary maps each key to a slot of one array, and the slots are
/// linked into a doubly linked list in recency order by index, so no entry is a heap object of
/// its own and freed slots are reused. Not thread-safe: share it behind a lock.
package struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Slot {
        /// Nil while the slot is on the free list, so that a removed value is released at once.
        var entry: (key: Key, value: Value)?
        /// The next more recently used slot, or `none`.
        var newer: Int
        /// The next less recently used slot, or `none`.
        var older: Int
    }

    private static var none: Int { -1 }

    /// The most entries held at once.
    package let capacity: Int
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotIndices: [Key: Int] = [:]
    private var newest = Self.none
    private var oldest = Self.none

    package init(capacity: Int) {
        precondition(capacity > 0, "an LRU cache holds at least one entry")
        self.capacity = capacity
    }

    package var count: Int { slotIndices.count }

    package var isEmpty: Bool { slotIndices.isEmpty }

    /// The value for `key`, which becomes the most recently used.
    package mutating func get(_ key: Key) -> Value? {
        guard let slot = slotIndices[key] else { return nil }
        moveToNewest(slot)
        return slots[slot].entry?.value
    }

    /// The value for `key`, leaving the recency order as it is.
    package func peek(_ key: Key) -> Value? {
        guard let slot = slotIndices[key] else { return nil }
        return slots[slot].entry?.value
    }

    package func contains(_ key: Key) -> Bool { slotIndices[key] != nil }

    /// Stores `value` as the most recently used entry; returns the entry evicted to make room.
    @discardableResult
    package mutating func set(_ key: Key, _ value: Value) -> (key: Key, value: Value)? {
        if let slot = slotIndices[key] {
            slots[slot].entry = (key, value)
            moveToNewest(slot)
            return nil
        }
        var evicted: (key: Key, value: Value)?
        if slotIndices.count == capacity, let victim = slots[oldest].entry {
            slotIndices[victim.key] = nil
            evicted = release(oldest)
        }
        let slot = allocate((key, value))
        linkAsNewest(slot)
        slotIndices[key] = slot
        return evicted
    }

    /// Removes `key`; returns its value if it was present.
    @discardableResult
    package mutating func remove(_ key: Key) -> Value? {
        guard let slot = slotIndices.removeValue(forKey: key) else { return nil }
        return release(slot)?.value
    }

    package mutating func removeAll() {
        slots.removeAll()
        freeSlots.removeAll()
        slotIndices.removeAll()
        newest = Self.none
        oldest = Self.none
    }

    /// Every entry, least recently used first: replaying them through `set` rebuilds this order.
    package var leastRecentFirst: [(key: Key, value: Value)] {
        var result: [(key: Key, value: Value)] = []
        result.reserveCapacity(count)
        var slot = oldest
        while slot != Self.none {
            if let entry = slots[slot].entry { result.append(entry) }
            slot = slots[slot].newer
        }
        return result
    }

    // MARK: - The linked list

    private mutating func allocate(_ entry: (key: Key, value: Value)) -> Int {
        if let slot = freeSlots.popLast() {
            slots[slot].entry = entry
            return slot
        }
        slots.append(Slot(entry: entry, newer: Self.none, older: Self.none))
        return slots.count - 1
    }

    /// Unlinks `slot` and puts it on the free list; the caller has already dropped its key.
    private mutating func release(_ slot: Int) -> (key: Key, value: Value)? {
        unlink(slot)
        let entry = slots[slot].entry
        slots[slot].entry = nil
        freeSlots.append(slot)
        return entry
    }

    private mutating func moveToNewest(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        linkAsNewest(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer
        let older = slots[slot].older
        if newer == Self.none { newest = older } else { slots[newer].older = older }
        if older == Self.none { oldest = newer } else { slots[older].newer = newer }
        slots[slot].newer = Self.none
        slots[slot].older = Self.none
    }

    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = Self.none
        if newest == Self.none { oldest = slot } else { slots[newest].newer = slot }
        newest = slot
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
extension LRUCache.Slot: Sendable where Key: Sendable, Value: Sendable {}
