// A secondary index of a store shard: which keys carry a tag, an operation name or a document,
// so that a purge by any of them visits only the entries it removes.

/// A map from a term to the keys of the entries that carry it; a term with no key is dropped.
struct StoreIndex<Term: Hashable & Sendable>: Sendable {
    private var keysByTerm: [Term: Set<CacheKey>] = [:]

    /// Distinct terms held.
    var termCount: Int { keysByTerm.count }

    mutating func insert(_ key: CacheKey, under term: Term) {
        keysByTerm[term, default: []].insert(key)
    }

    /// Removes `key` from `term`'s keys; a key or term not present is ignored.
    mutating func remove(_ key: CacheKey, from term: Term) {
        guard let index = keysByTerm.index(forKey: term) else { return }
        keysByTerm.values[index].remove(key)
        if keysByTerm.values[index].isEmpty { keysByTerm.remove(at: index) }
    }

    func keys(for term: Term) -> Set<CacheKey> {
        keysByTerm[term] ?? []
    }

    /// Takes `term` out of the index and returns its keys, which the caller is about to remove
    /// (taking them out first spares a copy of the set while it is iterated).
    mutating func removeKeys(for term: Term) -> Set<CacheKey> {
        keysByTerm.removeValue(forKey: term) ?? []
    }

    mutating func removeAll() {
        keysByTerm.removeAll()
    }

    /// Every (term, keys) pair, for consistency checks.
    var allTerms: [Term: Set<CacheKey>] { keysByTerm }
}
