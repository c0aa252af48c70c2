// One shard of the response store: its entries, its SIEVE eviction queue, its purge indexes and
// its share of the memory bound. Not thread-safe: `ResponseStore` keeps each behind a mutex.

/// Entries under a byte budget, evicted by SIEVE (Zhang et al., NSDI '24).
///
/// SIEVE keeps one FIFO queue: new entries enter at the head (newest), a hit only sets the entry's
/// visited bit, and to make room a hand walks from the tail toward the head, clearing visited bits,
/// and evicts the first unvisited entry; the hand stays where it stopped for the next eviction.
/// Hits never move entries, so a lookup writes one bit, and popular entries survive the scan.
///
/// The queue is linked by indices into one array of slots (freed slots are reused), so no node is
/// an object of its own. Every operation is O(1) amortised, purges O(entries purged).
struct SieveShard {
    private struct Slot {
        /// Nil while the slot is on the free list, so that a removed entry is released at once.
        var entry: CacheEntry?
        var isVisited = false
        /// When a soft purge made the entry stale; nil if none did.
        var staleSince: ContinuousClock.Instant?
        /// The next newer slot (toward the head), or `none`.
        var newer: Int
        /// The next older slot (toward the tail), or `none`.
        var older: Int
    }

    private static var none: Int { -1 }

    /// The most cost this shard holds at once.
    let budget: Int
    private(set) var bytes = 0
    private(set) var evictions = 0
    private(set) var expired = 0
    private(set) var rejected = 0

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotIndices: [CacheKey: Int] = [:]
    private var newest = Self.none
    private var oldest = Self.none
    /// The next slot the eviction hand examines; `none` means start again from the tail.
    private var hand = Self.none
    /// Purges by tag (a mutation's entities, an admin purge) find their entries here. Purges by
    /// operation or document are rare admin requests and walk the slots instead: an index for
    /// each would cost every entry two more set slots (about 160 resident bytes at 1 KiB bodies).
    private(set) var tagIndex = StoreIndex<String>()

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    var count: Int { slotIndices.count }

    /// Classifies the entry for `key` at `now`; a hit marks it visited, an entry that can serve
    /// nobody any more is removed and counted as expired.
    mutating func lookup(_ key: CacheKey, now: ContinuousClock.Instant) -> CacheLookup {
        guard let slot = slotIndices[key], let entry = slots[slot].entry else { return .miss }
        let lookup = CacheLookup(classifying: entry, staleSince: slots[slot].staleSince, now: now)
        switch lookup {
        case .fresh, .stale:
            slots[slot].isVisited = true
        case .staleIfErrorOnly:
            // Served only if the origin fails, and about to be replaced if it answers: not a hit.
            break
        case .miss:
            removeSlot(slot)
            expired += 1
        }
        return lookup
    }

    /// Inserts or replaces `entry`, evicting until it fits; returns how many entries were evicted.
    ///
    /// An entry costlier than the whole budget is not stored, and the one it would have replaced
    /// is removed all the same: the origin has sent something newer. A replaced entry whose TTL
    /// had run out (a refresh of a stale entry, a refetch) is counted as expired.
    mutating func store(_ entry: CacheEntry, now: ContinuousClock.Instant) -> Int {
        if let slot = slotIndices[entry.key] {
            if let old = slots[slot].entry, now >= old.expiresAt(staleSince: nil) { expired += 1 }
            removeSlot(slot)
        }
        guard entry.cost <= budget else {
            rejected += 1
            return 0
        }
        var evicted = 0
        while bytes + entry.cost > budget, oldest != Self.none {
            if evictOne(now: now) { evicted += 1 }
        }
        insert(entry)
        return evicted
    }

    mutating func remove(_ key: CacheKey) {
        guard let slot = slotIndices[key] else { return }
        removeSlot(slot)
    }

    /// Removes (hard) or marks stale as of `now` (soft) the entries `selector` reaches; returns how many.
    mutating func purge(_ selector: PurgeSelector, soft: Bool, now: ContinuousClock.Instant) -> Int {
        let keys: Set<CacheKey>
        switch selector {
        case .all:
            return soft ? markAllStale(now: now) : removeAll()
        case .operation(let name):
            keys = self.keys { $0.operationName == name }
        case .document(let digest):
            keys = self.keys { $0.documentDigest == digest }
        case .tag(let tag):
            keys = soft ? tagIndex.keys(for: tag) : tagIndex.removeKeys(for: tag)
        }
        var affected = 0
        for key in keys {
            guard let slot = slotIndices[key] else { continue }
            if soft { markStale(slot, now: now) } else { removeSlot(slot) }
            affected += 1
        }
        return affected
    }

    /// The keys of the stored entries `matching` selects, by a walk over the slots.
    private func keys(matching: (CacheEntry) -> Bool) -> Set<CacheKey> {
        var keys = Set<CacheKey>()
        for slot in slots {
            if let entry = slot.entry, matching(entry) { keys.insert(entry.key) }
        }
        return keys
    }

    /// The entries from oldest to newest, or nil if the queue's links are broken (for self-checks).
    func queuedEntries() -> [CacheEntry]? {
        var entries: [CacheEntry] = []
        var slot = oldest
        var previous = Self.none
        var handSeen = hand == Self.none
        while slot != Self.none {
            guard entries.count < slots.count, slots[slot].older == previous, let entry = slots[slot].entry else {
                return nil
            }
            if slot == hand { handSeen = true }
            entries.append(entry)
            previous = slot
            slot = slots[slot].newer
        }
        guard previous == newest, handSeen, entries.count + freeSlots.count == slots.count else { return nil }
        return entries
    }

    // MARK: - Eviction

    /// Removes the entry at the SIEVE hand; returns false if it went because it had expired.
    ///
    /// An entry past every serving window is taken wherever the hand meets it, visited or not,
    /// and counted as expired: it costs no hit and frees room all the same. The hand is set on the
    /// slot removed so that `removeSlot` moves it to the newer neighbour, where the next scan resumes.
    private mutating func evictOne(now: ContinuousClock.Instant) -> Bool {
        var slot = hand == Self.none ? oldest : hand
        while true {
            if let entry = slots[slot].entry, now >= entry.removableAt(staleSince: slots[slot].staleSince) {
                hand = slot
                removeSlot(slot)
                expired += 1
                return false
            }
            guard slots[slot].isVisited else { break }
            slots[slot].isVisited = false
            slot = slots[slot].newer == Self.none ? oldest : slots[slot].newer
        }
        hand = slot
        removeSlot(slot)
        evictions += 1
        return true
    }

    // MARK: - Slots, queue and indexes

    private mutating func insert(_ entry: CacheEntry) {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            slots[slot] = Slot(entry: entry, newer: Self.none, older: newest)
        } else {
            slot = slots.count
            slots.append(Slot(entry: entry, newer: Self.none, older: newest))
        }
        if newest == Self.none { oldest = slot } else { slots[newest].newer = slot }
        newest = slot
        slotIndices[entry.key] = slot
        bytes += entry.cost
        for tag in entry.tags { tagIndex.insert(entry.key, under: tag) }
    }

    /// Unlinks the slot's entry from the queue, the key map and the indexes, and frees the slot.
    private mutating func removeSlot(_ slot: Int) {
        guard let entry = slots[slot].entry else { return }
        slotIndices[entry.key] = nil
        bytes -= entry.cost
        for tag in entry.tags { tagIndex.remove(entry.key, from: tag) }

        let newer = slots[slot].newer
        let older = slots[slot].older
        if hand == slot { hand = newer }
        if newer == Self.none { newest = older } else { slots[newer].older = older }
        if older == Self.none { oldest = newer } else { slots[older].newer = newer }
        slots[slot] = Slot(entry: nil, newer: Self.none, older: Self.none)
        freeSlots.append(slot)
    }

    private mutating func removeAll() -> Int {
        let removed = slotIndices.count
        slots.removeAll()
        freeSlots.removeAll()
        slotIndices.removeAll()
        newest = Self.none
        oldest = Self.none
        hand = Self.none
        bytes = 0
        tagIndex.removeAll()
        return removed
    }

    private mutating func markAllStale(now: ContinuousClock.Instant) -> Int {
        for slot in slotIndices.values { markStale(slot, now: now) }
        return slotIndices.count
    }

    /// Ends the entry's freshness at `now`, unless an earlier purge already ended it.
    private mutating func markStale(_ slot: Int, now: ContinuousClock.Instant) {
        slots[slot].staleSince = min(slots[slot].staleSince ?? now, now)
    }
}
