// What a stored answer's TTL was decided from besides the settings (README "The response
// cache"): the origin's own lifetime and the types the answer held. Kept with the entry, so that
// a reload can tell the TTL the new settings would have given it (CachePolicy+StoredTTL.swift).

/// The answer's part of a TTL decision: with the settings, it gives the TTL again exactly.
package struct TTLBasis: Hashable, Sendable {
    /// The origin's `s-maxage`, else `max-age` (zero for `no-cache`); nil when it sent neither.
    /// Kept even when `honor_origin_cache_control` is off: a reload may turn it on.
    package var originTTL: Duration?
    /// Every type an object of the answer named, sorted (what `cache.types` is matched against).
    package var types: [String]

    package init(originTTL: Duration?, types: [String]) {
        self.originTTL = originTTL
        self.types = types
    }

    package init(cacheControl: CacheControl, types: Set<String>) {
        self.init(originTTL: cacheControl.lifetime, types: types.sorted())
    }
}

extension CacheControl {
    /// The lifetime a shared cache reads here: `s-maxage`, else `max-age`; zero for `no-cache`
    /// (revalidate before every reuse, and no revalidation happens here); nil when none is given.
    package var lifetime: Duration? {
        if noCache { return .zero }
        return (sharedMaxAge ?? maxAge).map { .seconds($0) }
    }
}
