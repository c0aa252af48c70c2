// Keys, entries and instants for the response store's tests (the core's and the server's).

import BreakwaterCore

/// Keys, entries and instants for the `ResponseStore*Tests`, `Eviction*Tests` files.
package enum StoreFixture {
    package static let hasher = SoftwareSHA256()
    package static let start = ContinuousClock.now
    package static let document = hasher.sha256("{ launches { launches { id } } }")
    package static let otherDocument = hasher.sha256("{ launch(id: 1) { id } }")
    package static let etag = "\"0123456789abcdef\""

    package static func key(_ number: Int) -> CacheKey {
        CacheKey(digest: hasher.sha256("key-\(number)"))
    }

    package static func entry(
        key: CacheKey,
        bodyBytes: Int = 100,
        storedAt: ContinuousClock.Instant = start,
        ttl: Duration = .seconds(30),
        staleWhileRevalidate: Duration = .seconds(10),
        staleIfError: Duration = .seconds(300),
        document: SHA256Digest = document,
        operationName: String? = "GetLaunches",
        tags: [String] = [],
        body: [UInt8]? = nil,
        ttlBasis: TTLBasis? = nil
    ) -> CacheEntry {
        CacheEntry.make(
            key: key, body: body ?? [UInt8](repeating: 0x20, count: bodyBytes), contentType: "application/json",
            etag: etag, storedAt: storedAt, ttl: ttl, staleWhileRevalidate: staleWhileRevalidate,
            staleIfError: staleIfError, documentDigest: document, operationName: operationName, tags: tags,
            isPerUser: false, ttlBasis: ttlBasis
        )
    }

    package static func kind(_ lookup: CacheLookup) -> String {
        switch lookup {
        case .fresh: "fresh"
        case .stale: "stale"
        case .staleIfErrorOnly: "staleIfErrorOnly"
        case .miss: "miss"
        }
    }
}
