// A bounded map that forgets the least recently used key first: the eviction order of the
// persisted-query registry (`persisted_queries.max_entries` and `max_bytes`, README "Configuration").

/// A map bounded in entries and in summed cost that evicts its least recently used entries to
/// make room for a new one.
///
/// Every operation is O(1). A dictionary maps each key to a slot of one array, and the slots are
/// linked into a doubly linked list in recency order by index, so no entry is a heap object of
/// its own and freed slots are reused. Not thread-safe: share it behind a lock.
package struct LRUCache<Key: Hashable, Value> {
    fileprivate struct Slot {
        /// Nil while the slot is on the free list, so that a removed value is released at once.
        var entry: (key: Key, value: Value)?
        /// What the entry counts against `maxCost`.
        var cost = 0
        /// The next more recently used slot, or `none`.
        var newer: Int
        /// The next less recently used slot, or `none`.
        var older: Int
    }

    private static var none: Int { -1 }

    /// The most entries held at once.
    package let capacity: Int
    /// The most summed cost held at once.
    package let maxCost: Int
    /// The summed cost of the entries held now.
    package private(set) var totalCost = 0
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotIndices: [Key: Int] = [:]
    private var newest = Self.none
    private var oldest = Self.none

    package init(capacity: Int, maxCost: Int = .max) {
        precondition(capacity > 0, "an LRU cache holds at least one entry")
        self.capacity = capacity
        self.maxCost = max(0, maxCost)
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

    /// Stores `value` (of cost 0) as the most recently used entry; returns the entry evicted to make room.
    @discardableResult
    package mutating func set(_ key: Key, _ value: Value) -> (key: Key, value: Value)? {
        insert(key, value, cost: 0).first
    }

    /// Stores `value` as the most recently used entry, evicting the least recently used until both
    /// bounds hold; returns the entries evicted. A value costlier than `maxCost` alone is not
    /// stored (and nothing is evicted for it); an entry it would have replaced is returned.
    @discardableResult
    package mutating func insert(_ key: Key, _ value: Value, cost: Int) -> [(key: Key, value: Value)] {
        var evicted: [(key: Key, value: Value)] = []
        if let slot = slotIndices[key] {
            guard cost <= maxCost else {
                slotIndices[key] = nil
                return release(slot).map { [$0] } ?? []
            }
            totalCost += cost - slots[slot].cost
            slots[slot].entry = (key, value)
            slots[slot].cost = cost
            moveToNewest(slot)
            while totalCost > maxCost, oldest != slot, let victim = evictOldest() { evicted.append(victim) }
            return evicted
        }
        guard cost <= maxCost else { return [] }
        while slotIndices.count >= capacity || totalCost + cost > maxCost, let victim = evictOldest() {
            evicted.append(victim)
        }
        let slot = allocate((key, value), cost: cost)
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
        totalCost = 0
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

    /// Removes and returns the least recently used entry, nil when there is none.
    private mutating func evictOldest() -> (key: Key, value: Value)? {
        guard oldest != Self.none, let victim = slots[oldest].entry else { return nil }
        slotIndices[victim.key] = nil
        return release(oldest)
    }

    private mutating func allocate(_ entry: (key: Key, value: Value), cost: Int) -> Int {
        totalCost += cost
        if let slot = freeSlots.popLast() {
            slots[slot].entry = entry
            slots[slot].cost = cost
            return slot
        }
        slots.append(Slot(entry: entry, cost: cost, newer: Self.none, older: Self.none))
        return slots.count - 1
    }

    /// Unlinks `slot` and puts it on the free list; the caller has already dropped its key.
    private mutating func release(_ slot: Int) -> (key: Key, value: Value)? {
        unlink(slot)
        let entry = slots[slot].entry
        totalCost -= slots[slot].cost
        slots[slot].entry = nil
        slots[slot].cost = 0
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
