// A per-event-loop memo from a request's raw GraphQL parameters (the GET target, or the POST
// body) to what parsing them decided. A popular hashed GET is parsed, resolved and analysed
// once, not on every hit; the checks that depend on headers still run on every request.

/// What one distinct request resolved to, plus the cache key its shared-scope answers use.
package struct MemoizedOperation {
    package var operation: PreparedOperation
    /// Set by the cache layer on first use (per-user keys depend on headers and are not kept).
    package var sharedCacheKey: CacheKey?
}

/// Bounded memo of resolved operations; used by one event loop only (not thread-safe).
package final class OperationMemo {
    package enum Key: Hashable {
        case get(String)
        case post([UInt8])

        /// Hashes a body as one block of bytes: `[UInt8]`'s own hashing feeds the hasher one
        /// byte at a time, which showed at the top of a POST-hit profile.
        package func hash(into hasher: inout Hasher) {
            switch self {
            case .get(let target):
                hasher.combine(0 as UInt8)
                hasher.combine(target)
            case .post(let body):
                hasher.combine(1 as UInt8)
                body.withUnsafeBytes { hasher.combine(bytes: $0) }
            }
        }
    }

    private var entries: [Key: MemoizedOperation] = [:]
    private let capacity: Int
    private let maxKeyBytes: Int
    private let budgetBytes: Int
    private var keyBytes = 0

    /// At most `capacity` entries and `budgetBytes` of keys plus their documents; an entry over
    /// `maxKeyBytes` is not kept at all.
    package init(capacity: Int = 4096, maxKeyBytes: Int = 8 << 10, budgetBytes: Int = 4 << 20) {
        self.capacity = capacity
        self.maxKeyBytes = maxKeyBytes
        self.budgetBytes = budgetBytes
    }

    package var count: Int { entries.count }
    package var bytes: Int { keyBytes }

    package subscript(key: Key) -> MemoizedOperation? {
        get { entries[key] }
        set {
            if let old = entries.removeValue(forKey: key) { keyBytes -= Self.cost(key, old) }
            guard let newValue else { return }
            let cost = Self.cost(key, newValue)
            guard cost <= maxKeyBytes else { return }
            // Wholesale reset when full: cheap, and the popular keys come back at once.
            if entries.count >= capacity || keyBytes + cost > budgetBytes { removeAll() }
            entries[key] = newValue
            keyBytes += cost
        }
    }

    package func removeAll() {
        entries.removeAll(keepingCapacity: true)
        keyBytes = 0
    }

    /// The bytes an entry holds: its key and the document it resolved to.
    private static func cost(_ key: Key, _ value: MemoizedOperation) -> Int {
        let keyBytes = switch key {
        case .get(let target): target.utf8.count
        case .post(let body): body.count
        }
        return keyBytes + value.operation.document.text.utf8.count
    }

    /// The memo key of a request: only operations that resolved are ever stored under it.
    package static func key(for request: HTTPRequest) -> Key? {
        switch request.method {
        case "GET": .get(request.target)
        case "POST": .post(request.body)
        default: nil
        }
    }
}
