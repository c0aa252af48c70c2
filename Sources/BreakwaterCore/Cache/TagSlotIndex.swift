// A store shard's tag index: for each entity tag, the numbers of the slots whose entries carry
// it, so that a purge by tag (a mutation's entities, an admin purge) visits only those.

/// Slot numbers by tag, kept compact: each number as the varint of its difference from the one
/// before it in the list (1 byte when entries are stored one after another, at most 5), not a
/// set of 32-byte keys.
///
/// Removing an entry only lowers its tags' live counts; its slot numbers stay in the lists until a
/// list holds more than twice its live count, when it is filtered (amortised O(1) per removal).
/// So a list may name a slot whose entry is gone, or whose slot a new entry took (twice, if that
/// entry carries the tag too): readers check every slot with `carries` and take each once.
package struct TagSlotIndex {
    private struct Postings {
        /// The slot numbers in the order they were added, delta-encoded (`SlotDeltas`).
        var slots = SlotDeltas()
        /// Entries stored now that carry the tag.
        var live = 0
    }

    private var byTag: [String: Postings] = [:]

    /// Each tag with how many stored entries carry it and the slots of those entries.
    package typealias Census = [String: (live: Int, slots: Set<UInt32>)]

    package init() {}

    /// Distinct tags carried by the entries stored now.
    package var tagCount: Int { byTag.count }

    /// Slot numbers held over all lists, stale ones included (for tests of the compaction).
    package var postingCount: Int { byTag.values.reduce(0) { $0 + $1.slots.count } }

    /// Bytes the lists' encodings take (for tests of their size).
    package var encodedBytes: Int { byTag.values.reduce(0) { $0 + $1.slots.encodedCount } }

    package mutating func insert(slot: UInt32, tags: [String]) {
        for tag in tags {
            byTag[tag, default: Postings()].slots.append(slot)
            byTag[tag]!.live += 1
        }
    }

    /// Notes that the entry at `slot` with `tags` is gone; `carries(slot, tag)` must already say
    /// false for it (the caller empties the slot first).
    package mutating func remove(
        slot: UInt32, tags: [String], carries: (UInt32, String) -> Bool
    ) {
        for tag in tags {
            guard let index = byTag.index(forKey: tag) else { continue }
            byTag.values[index].live -= 1
            let postings = byTag.values[index]
            if postings.live <= 0 {
                byTag.remove(at: index)
            } else if postings.slots.count > 2 * postings.live + 8 {
                byTag.values[index].slots = SlotDeltas(Self.unique(postings.slots, carrying: tag, carries))
            }
        }
    }

    /// The slots whose entries carry `tag`, each once.
    package func slots(for tag: String, carries: (UInt32, String) -> Bool) -> [UInt32] {
        guard let postings = byTag[tag] else { return [] }
        return Self.unique(postings.slots, carrying: tag, carries)
    }

    /// Takes `tag` out of the index and returns the slots whose entries carry it, each once: the
    /// caller is about to remove them all.
    package mutating func removeSlots(for tag: String, carries: (UInt32, String) -> Bool) -> [UInt32] {
        guard let postings = byTag.removeValue(forKey: tag) else { return [] }
        return Self.unique(postings.slots, carrying: tag, carries)
    }

    package mutating func removeAll() {
        byTag.removeAll()
    }

    /// Every tag with its live count and the slots that carry it (for consistency checks).
    package func census(carries: (UInt32, String) -> Bool) -> Census {
        byTag.reduce(into: [:]) { all, pair in
            all[pair.key] = (pair.value.live, Set(Self.unique(pair.value.slots, carrying: pair.key, carries)))
        }
    }

    private static func unique(
        _ slots: SlotDeltas, carrying tag: String, _ carries: (UInt32, String) -> Bool
    ) -> [UInt32] {
        var seen = Set<UInt32>(minimumCapacity: slots.count)
        var found: [UInt32] = []
        slots.forEach { slot in
            if carries(slot, tag) && seen.insert(slot).inserted { found.append(slot) }
        }
        return found
    }
}
