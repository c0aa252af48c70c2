// Which entries a purge reaches (docs/SCHEMA.md and README "Watching it: the admin endpoints", `POST /purge`).

/// The entries a purge applies to; every case but `all` is answered from an index, without a scan.
package enum PurgeSelector: Sendable, Equatable {
    case all
    /// Entries stored for this exact `operationName`.
    case operation(String)
    /// Entries of the document with this SHA-256.
    case document(SHA256Digest)
    /// Entries holding an entity, `"Launch:92"`, or any entity of a type, `"Launch"`.
    case tag(String)
}
