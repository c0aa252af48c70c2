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
    /// One entry's place: 16 bytes, in one array with the others (its visited bit and its
    /// soft-purge mark, if any, are apart).
    private struct Slot {
        /// Nil while the slot is on the free list, so that a removed entry is released at once.
        var entry: CacheEntry?
        /// The next newer slot (toward the head), or `none`; on the free list, the next free slot.
        var newer: UInt32
        /// The next older slot (toward the tail), or `none`.
        var older: UInt32
    }

    private static var none: UInt32 { UInt32.max }

    /// The most cost this shard holds at once.
    let budget: Int
    private(set) var bytes = 0
    private(set) var evictions = 0
    private(set) var expired = 0
    private(set) var rejected = 0

    private var slots: [Slot] = []
    /// Each slot's SIEVE bit: hit since the hand last passed.
    private var visited: [Bool] = []
    /// When a soft purge made a slot's entry stale: only for the slots a soft purge reached, so
    /// that the others pay nothing for it (8 bytes a slot).
    private var staleMarks: [UInt32: CompactInstant] = [:]
    /// The first free slot (the free list runs through `newer`), or `none`.
    private var firstFree = Self.none
    private var freeCount = 0
    private var index = KeySlotTable()
    private var newest = Self.none
    private var oldest = Self.none
    /// The next slot the eviction hand examines; `none` means start again from the tail.
    private var hand = Self.none
    /// Purges by tag (a mutation's entities, an admin purge) find their entries here. Purges by
    /// operation or document are rare admin requests and walk the slots instead: an index for
    /// each would cost every entry more memory than the purge it speeds up is worth.
    private(set) var tagIndex = TagSlotIndex()

    init(budget: Int) {
        self.budget = max(0, budget)
    }

    var count: Int { index.count }

    /// Classifies the entry for `key` at `now`; a hit marks it visited, an entry that can serve
    /// nobody any more is removed and counted as expired.
    mutating func lookup(_ key: CacheKey, now: ContinuousClock.Instant) -> CacheLookup {
        guard let slot = find(key), let entry = slots[Int(slot)].entry else { return .miss }
        let lookup = CacheLookup(classifying: entry, staleSince: staleSince(slot), now: now)
        switch lookup {
        case .fresh, .stale:
            visited[Int(slot)] = true
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
        if let slot = find(entry.key) {
            if let old = slots[Int(slot)].entry, now >= old.expiresAt(staleSince: nil) { expired += 1 }
            removeSlot(slot)
        }
        let cost = entry.cost
        guard cost <= budget else {
            rejected += 1
            return 0
        }
        var evicted = 0
        while bytes + cost > budget, oldest != Self.none {
            if evictOne(now: now) { evicted += 1 }
        }
        insert(entry)
        return evicted
    }

    mutating func remove(_ key: CacheKey) {
        guard let slot = find(key) else { return }
        removeSlot(slot)
    }

    /// Removes (hard) or marks stale as of `now` (soft) the entries `selector` reaches; returns how many.
    mutating func purge(_ selector: PurgeSelector, soft: Bool, now: ContinuousClock.Instant) -> Int {
        let reached: [UInt32]
        switch selector {
        case .all:
            return soft ? markAllStale(now: now) : removeAll()
        case .operation(let name):
            reached = self.slots { $0.operationName == name }
        case .document(let digest):
            reached = self.slots { $0.documentDigest == digest }
        case .tag(let tag):
            reached =
                soft
                ? tagIndex.slots(for: tag, carries: carries) : tagIndex.removeSlots(for: tag, carries: carries)
        }
        for slot in reached {
            if soft { markStale(slot, now: now) } else { removeSlot(slot) }
        }
        return reached.count
    }

    /// Every entry with the instant a soft purge made it stale (nil when none did), in an order
    /// close to recency: the entries hit since the SIEVE hand last passed first, then the others,
    /// each part from the newest stored to the oldest. SIEVE keeps no exact last-use order (a hit
    /// only sets a bit), so this is the best it knows; the cache snapshot writes in this order.
    func entriesByRecency() -> [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)] {
        var visitedEntries: [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)] = []
        var others: [(entry: CacheEntry, staleSince: ContinuousClock.Instant?)] = []
        others.reserveCapacity(count)
        var slot = newest
        var walked = 0
        while slot != Self.none, walked < slots.count {
            if let entry = slots[Int(slot)].entry {
                if visited[Int(slot)] {
                    visitedEntries.append((entry, staleSince(slot)))
                } else {
                    others.append((entry, staleSince(slot)))
                }
            }
            slot = slots[Int(slot)].older
            walked += 1
        }
        return visitedEntries + others
    }

    /// Stores `entries`, given most recently used first, as far as they fit the budget beside
    /// what the shard holds, evicting nothing (an entry that does not fit is passed over); they
    /// enter the queue least recent first, so that the most recent are the newest and the SIEVE
    /// hand reaches them last. Returns how many were stored and their cost.
    mutating func restore(_ entries: [CacheEntry]) -> (stored: Int, bytes: Int) {
        var taken: [CacheEntry] = []
        var room = budget - bytes
        for entry in entries where entry.cost <= room && find(entry.key) == nil {
            taken.append(entry)
            room -= entry.cost
        }
        for entry in taken.reversed() { insert(entry) }
        return (taken.count, taken.reduce(0) { $0 + $1.cost })
    }

    /// Every stored entry, in slot order.
    func entries() -> [CacheEntry] {
        slots.compactMap(\.entry)
    }

    /// Puts `new` (a copy of `old` with another TTL: the same key, tags and bytes) in `old`'s
    /// place when `old` is still stored: its slot, recency, visited bit and soft-purge mark stay.
    /// Returns whether it did.
    mutating func replace(_ old: CacheEntry, with new: CacheEntry) -> Bool {
        guard new.key == old.key, let slot = find(old.key), slots[Int(slot)].entry === old else { return false }
        bytes += new.cost - old.cost
        slots[Int(slot)].entry = new
        return true
    }

    /// The slots of the stored entries `matching` selects, by a walk over the slots.
    private func slots(matching: (CacheEntry) -> Bool) -> [UInt32] {
        slots.indices.compactMap { slot in
            guard let entry = slots[slot].entry, matching(entry) else { return nil }
            return UInt32(slot)
        }
    }

    /// Whether the entry stored at `slot` carries `tag` (the tag index's check of its lists).
    private func carries(_ slot: UInt32, _ tag: String) -> Bool {
        slots[Int(slot)].entry?.tags.contains(tag) ?? false
    }

    /// The entries from oldest to newest, or nil if the queue's links are broken (for self-checks).
    func queuedEntries() -> [CacheEntry]? {
        var entries: [CacheEntry] = []
        var slot = oldest
        var previous = Self.none
        var handSeen = hand == Self.none
        while slot != Self.none {
            guard entries.count < slots.count, slots[Int(slot)].older == previous, let entry = slots[Int(slot)].entry
            else { return nil }
            if slot == hand { handSeen = true }
            entries.append(entry)
            previous = slot
            slot = slots[Int(slot)].newer
        }
        guard previous == newest, handSeen, entries.count + freeCount == slots.count else { return nil }
        return entries
    }

    /// Whether the free list and the key table describe the slots (for self-checks): every free
    /// slot empty and listed once, every stored entry found by its key at its own slot, every
    /// soft-purge mark on a slot that holds an entry.
    func slotsAreIndexed() -> Bool {
        var free = 0
        var slot = firstFree
        while slot != Self.none {
            guard free < slots.count, slots[Int(slot)].entry == nil else { return false }
            free += 1
            slot = slots[Int(slot)].newer
        }
        guard free == freeCount, index.count + freeCount == slots.count, visited.count == slots.count,
            staleMarks.keys.allSatisfy({ Int($0) < slots.count && slots[Int($0)].entry != nil })
        else {
            return false
        }
        for (number, slot) in slots.enumerated() {
            guard let entry = slot.entry else { continue }
            guard find(entry.key) == UInt32(number) else { return false }
        }
        return true
    }

    /// Slots allocated, used or free (for tests of slot reuse).
    var slotCapacity: Int { slots.count }

    /// Each tag with how many stored entries carry it and their slots, as the tag index says and
    /// as a walk over the slots finds (for self-checks: the two must agree).
    func tagCensus() -> (indexed: TagSlotIndex.Census, found: TagSlotIndex.Census) {
        var found: TagSlotIndex.Census = [:]
        for slot in slots.indices {
            for tag in slots[slot].entry?.tags ?? [] {
                found[tag, default: (0, [])].live += 1
                found[tag]!.slots.insert(UInt32(slot))
            }
        }
        return (tagIndex.census(carries: carries), found)
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
            if let entry = slots[Int(slot)].entry, now >= entry.removableAt(staleSince: staleSince(slot)) {
                hand = slot
                removeSlot(slot)
                expired += 1
                return false
            }
            guard visited[Int(slot)] else { break }
            visited[Int(slot)] = false
            slot = slots[Int(slot)].newer == Self.none ? oldest : slots[Int(slot)].newer
        }
        hand = slot
        removeSlot(slot)
        evictions += 1
        return true
    }

    // MARK: - Slots, queue and indexes

    /// The slot of the entry stored for `key`, or nil.
    @inline(__always)
    private func find(_ key: CacheKey) -> UInt32? {
        index.firstSlot(hash: Self.hash(key)) { slots[Int($0)].entry?.key == key }
    }

    /// The key's bucket hash: digest bytes 0..<4 (uniform already; the shard uses bytes 8..<16).
    @inline(__always)
    private static func hash(_ key: CacheKey) -> UInt32 {
        UInt32(truncatingIfNeeded: key.prefix)
    }

    private func staleSince(_ slot: UInt32) -> ContinuousClock.Instant? {
        guard !staleMarks.isEmpty, let mark = staleMarks[slot] else { return nil }
        return mark.instant
    }

    private mutating func insert(_ entry: CacheEntry) {
        let slot: UInt32
        let fresh = Slot(entry: entry, newer: Self.none, older: newest)
        if firstFree != Self.none {
            slot = firstFree
            firstFree = slots[Int(slot)].newer
            freeCount -= 1
            slots[Int(slot)] = fresh
            visited[Int(slot)] = false
        } else {
            slot = UInt32(slots.count)
            if slots.count == slots.capacity {
                // By a quarter, not the doubling `append` would make: 16 bytes a slot are worth
                // the more frequent copies (100k entries: 1.6 MB of slots, not 2.1).
                slots.reserveCapacity(slots.count + slots.count / 4 + 64)
                visited.reserveCapacity(slots.capacity)
            }
            slots.append(fresh)
            visited.append(false)
        }
        if newest == Self.none { oldest = slot } else { slots[Int(newest)].newer = slot }
        newest = slot
        index.insert(slot: slot, hash: Self.hash(entry.key))
        bytes += entry.cost
        if !entry.tags.isEmpty { tagIndex.insert(slot: slot, tags: entry.tags) }
    }

    /// Unlinks the slot's entry from the queue, the key table and the indexes, and frees the slot.
    private mutating func removeSlot(_ slot: UInt32) {
        guard let entry = slots[Int(slot)].entry else { return }
        index.remove(slot: slot, hash: Self.hash(entry.key))
        bytes -= entry.cost

        let newer = slots[Int(slot)].newer
        let older = slots[Int(slot)].older
        if hand == slot { hand = newer }
        if newer == Self.none { newest = older } else { slots[Int(newer)].older = older }
        if older == Self.none { oldest = newer } else { slots[Int(older)].newer = newer }
        slots[Int(slot)] = Slot(entry: nil, newer: firstFree, older: Self.none)
        if !staleMarks.isEmpty { staleMarks.removeValue(forKey: slot) }
        visited[Int(slot)] = false
        firstFree = slot
        freeCount += 1
        // After the slot is emptied, so that the index's check no longer counts it.
        if !entry.tags.isEmpty { tagIndex.remove(slot: slot, tags: entry.tags, carries: carries) }
    }

    private mutating func removeAll() -> Int {
        let removed = index.count
        slots = []
        visited = []
        staleMarks = [:]
        firstFree = Self.none
        freeCount = 0
        index.removeAll()
        newest = Self.none
        oldest = Self.none
        hand = Self.none
        bytes = 0
        tagIndex.removeAll()
        return removed
    }

    private mutating func markAllStale(now: ContinuousClock.Instant) -> Int {
        var marked = 0
        for slot in slots.indices where slots[slot].entry != nil {
            markStale(UInt32(slot), now: now)
            marked += 1
        }
        return marked
    }

    /// Ends the entry's freshness at `now`, unless an earlier purge already ended it.
    private mutating func markStale(_ slot: UInt32, now: ContinuousClock.Instant) {
        let mark = CompactInstant(now)
        staleMarks[slot] = min(staleMarks[slot] ?? mark, mark)
    }
}
