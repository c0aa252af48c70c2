// The local persisted-query registry behind a protocol (today `PersistedQueryRegistry`).

/// The documents this process knows by hash or id; thread-safe.
package protocol DocumentRegistry: AnyObject, Sendable {
    var mode: Configuration.PersistedQueryMode { get }
    func document(for digest: SHA256Digest) -> String?
    func document(forID id: String) -> String?
    func isSafelisted(_ digest: SHA256Digest) -> Bool
    /// Adds a verified document; returns whether it was new. Persisting it happens off the
    /// caller's thread (write-behind).
    @discardableResult func register(_ digest: SHA256Digest, document: String) -> Bool
    var entries: Int { get }
}

extension PersistedQueryRegistry: DocumentRegistry {}
