// Self-checks of a shard's bookkeeping, for tests: the queue, the key table, the free list, the
// byte count and the tag index must describe the same entries.

extension SieveShard {
    /// Every way the shard's structures disagree with each other; empty when they are consistent.
    func consistencyProblems() -> [String] {
        var problems: [String] = []
        guard let queued = queuedEntries() else { return ["the queue's links, free list or hand are broken"] }
        if !slotsAreIndexed() { problems.append("the key table or free list disagrees with the slots") }
        if queued.count != count { problems.append("queue holds \(queued.count) entries, key map \(count)") }
        let cost = queued.reduce(0) { $0 + $1.cost }
        if cost != bytes { problems.append("entries cost \(cost), bytes say \(bytes)") }
        if bytes > budget { problems.append("bytes \(bytes) exceed budget \(budget)") }
        var byKey: [CacheKey: CacheEntry] = [:]
        for entry in queued { byKey[entry.key] = entry }
        if byKey.count != queued.count { problems.append("a key is queued twice") }

        let (indexed, found) = tagCensus()
        let wrong = Set(indexed.keys).union(found.keys).filter { tag in
            indexed[tag]?.live != found[tag]?.live || indexed[tag]?.slots != found[tag]?.slots
        }
        if !wrong.isEmpty { problems.append("tag index disagrees with the entries on \(wrong.count) tags") }
        return problems
    }
}
