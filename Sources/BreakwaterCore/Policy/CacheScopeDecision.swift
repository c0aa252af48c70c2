// Where a query's answer may live: the shared cache, one user's corner of it, or nowhere.

/// Whose cache entry a request may read and write (docs/SECURITY.md).
package enum CacheScopeDecision: Sendable, Equatable {
    /// One entry for everybody.
    case shared
    /// One entry per distinct set of private header values; `material` is an unambiguous byte
    /// encoding of them that the caller hashes into the key, so users never share an entry.
    case perUser(material: [UInt8])
    /// Neither read nor write the cache.
    case bypass(BypassReason)
}
