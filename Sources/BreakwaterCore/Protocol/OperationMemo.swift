// A per-event-loop memo from a request's raw GraphQL parameters (the GET target, or the POST
// body) to what parsing them decided. A popular hashed GET is parsed, resolved and analysed
// once, not on every hit; the checks that depend on headers still run on every request.

#if canImport(Glibc)
import Glibc
#endif

/// What one distinct request resolved to, plus the cache key its shared-scope answers use.
package struct MemoizedOperation {
    package var operation: PreparedOperation
    /// Set by the cache layer on first use (per-user keys depend on headers and are not kept).
    package var sharedCacheKey: CacheKey?
}

/// Bounded memo of resolved operations; used by one event loop only (not thread-safe).
package final class OperationMemo {
    /// A request's raw parameters with their hash, computed once: the dictionary compares the
    /// hashes before the bytes, so a lookup among many bodies of one length (distinct variables,
    /// the miss path) does not compare each body it probes byte by byte. `SeededByteHash` spends
    /// a few instructions per word where `Hasher.combine(bytes:)` spent about 14 per byte.
    package struct Key: Hashable {
        package enum Raw: Equatable {
            case get(String)
            case post([UInt8])
        }

        package let raw: Raw
        /// The bytes' hash, computed once (the dictionary's and the doorkeeper's).
        package let hash: Int

        package init(_ raw: Raw) {
            self.raw = raw
            switch raw {
            case .get(let target):
                hash = SeededByteHash.hash(target, kind: 0)
            case .post(let body):
                hash = body.withUnsafeBytes { SeededByteHash.hash($0, kind: 1) }
            }
        }

        package static func get(_ target: String) -> Key { Key(.get(target)) }
        package static func post(_ body: [UInt8]) -> Key { Key(.post(body)) }

        package static func == (lhs: Key, rhs: Key) -> Bool {
            guard lhs.hash == rhs.hash else { return false }
            switch (lhs.raw, rhs.raw) {
            case (.get(let a), .get(let b)): return a == b
            case (.post(let a), .post(let b)):
                // One memcmp: `[UInt8] ==` compares element by element.
                return a.count == b.count && a.withUnsafeBytes { x in
                    b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 }
                }
            default: return false
            }
        }

        package func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private var entries: [Key: MemoizedOperation] = [:]
    private let capacity: Int
    private let maxKeyBytes: Int
    private let budgetBytes: Int
    private let entryOverhead: Int
    private var keyBytes = 0
    /// The doorkeeper: the requests seen once and not kept, one per slot (a slot holds the last
    /// such request's hash whose low bits name it, with its lowest bit set; 0 is an empty
    /// slot). A request is kept the second time it resolves, so that a flood of requests seen
    /// once (distinct variables, a cache being filled) neither fills the memo nor pays for
    /// entries it never reads. Noting one costs a store: no hashing of the hash, no set to grow
    /// or empty (a `Set` cost about 500 instructions a request seen once).
    private var seen: [Int]
    private let seenMask: Int
    private let admitsOnSecondSight: Bool

    /// Bytes an entry holds beyond the texts counted one by one (its key, document and origin
    /// request): the operation's objects, its parsed variables, the dictionary's slot. Measured:
    /// 4096 entries of a 330-byte POST held 5.6 MB, 1,360 bytes each (2026-11-25).
    package static let defaultEntryOverhead = 640

    /// At most `capacity` entries and about `budgetBytes` of memory: each entry counts its key,
    /// its document, its origin request and `entryOverhead`; an entry whose key and document
    /// are over `maxKeyBytes` is not kept at all. A flood of distinct requests fills the memo with
    /// requests seen once: the budget, not the count, is what bounds it then. With
    /// `admitsOnSecondSight`, a request is kept only the second time it is stored (a TinyLFU-style
    /// doorkeeper), so such a flood keeps nothing.
    package init(
        capacity: Int = 4096, maxKeyBytes: Int = 8 << 10, budgetBytes: Int = 2 << 20,
        entryOverhead: Int = OperationMemo.defaultEntryOverhead, admitsOnSecondSight: Bool = true
    ) {
        self.capacity = capacity
        self.maxKeyBytes = maxKeyBytes
        self.budgetBytes = budgetBytes
        self.entryOverhead = entryOverhead
        self.admitsOnSecondSight = admitsOnSecondSight
        // At least `capacity` slots, a power of two (a request's slot is its hash's low bits).
        let slots = admitsOnSecondSight ? 1 << (Int.bitWidth - (max(capacity, 2) - 1).leadingZeroBitCount) : 1
        seen = Array(repeating: 0, count: slots)
        seenMask = slots - 1
    }

    package var count: Int { entries.count }
    package var bytes: Int { keyBytes }

    package subscript(key: Key) -> MemoizedOperation? {
        get { entries[key] }
        set {
            guard let newValue else {
                if let old = entries.removeValue(forKey: key) { keyBytes -= cost(key, old) }
                return
            }
            // A kept entry is replaced in place (the flow records a cache key in it): no second
            // sight asked of it.
            if let index = entries.index(forKey: key) {
                keyBytes += cost(key, newValue) - cost(key, entries.values[index])
                entries.values[index] = newValue
                return
            }
            remember(newValue, for: key)
        }
    }

    /// Stores `value` under `key` and returns whether it is kept: false for a request seen for
    /// the first time (the doorkeeper only notes it) or too large to keep. The caller that
    /// gets false knows the memo holds nothing under `key` and need not ask again (a one-off
    /// request, such as a miss with distinct variables, pays one probe, not two).
    @discardableResult
    package func remember(_ value: MemoizedOperation, for key: Key) -> Bool {
        // The key and its document within `maxKeyBytes`, or not kept (nor any older entry).
        guard Self.keyCount(key) + value.operation.document.text.utf8.count <= maxKeyBytes else {
            if let old = entries.removeValue(forKey: key) { keyBytes -= cost(key, old) }
            return false
        }
        if admitsOnSecondSight {
            // A first sight is noted, and the memo not even probed: the caller found nothing
            // under `key` (an entry kept since, by a request that resolved meanwhile, stays).
            let slot = key.hash & seenMask, mark = key.hash | 1
            guard seen[slot] == mark else {
                seen[slot] = mark
                return false
            }
            seen[slot] = 0
        }
        if let old = entries.removeValue(forKey: key) { keyBytes -= cost(key, old) }
        let cost = cost(key, value)
        // Wholesale reset when full: cheap, and the popular keys come back at once.
        if entries.count >= capacity || keyBytes + cost > budgetBytes { dropEntries() }
        entries[key] = value
        keyBytes += cost
        return true
    }

    /// Forgets every entry and every request seen once (a reload: what they resolved to may differ).
    package func removeAll() {
        dropEntries()
        seen.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
    }

    private func dropEntries() {
        entries.removeAll(keepingCapacity: true)
        keyBytes = 0
    }

    /// The bytes an entry holds: its key, the document it resolved to, the origin request made
    /// from them, and the fixed overhead.
    private func cost(_ key: Key, _ value: MemoizedOperation) -> Int {
        let origin = value.operation.origin
        return Self.keyCount(key) + value.operation.document.text.utf8.count + origin.body.count
            + origin.target.utf8.count + entryOverhead
    }

    private static func keyCount(_ key: Key) -> Int {
        switch key.raw {
        case .get(let target): target.utf8.count
        case .post(let body): body.count
        }
    }

    /// The memo key of a request: only operations that resolved are ever stored under it.
    package static func key(for request: HTTPRequest) -> Key? {
        switch request.method {
        // The cases, not literals: `case "GET"` made a method from the literal, by string
        // comparisons, on every request.
        case .get: .get(request.target)
        case .post: .post(request.body)
        default: nil
        }
    }
}
