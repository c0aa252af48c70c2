// The persisted-query registry a fleet shares (docs/FLEET.md), as the flow sees it.

/// A fleet registry bound to one event loop: completions run on that loop, exactly once.
package protocol DocumentTier: AnyObject {
    /// The document registered under `hash` anywhere in the fleet; nil when unknown or unreachable.
    /// The caller verifies the hash before trusting the text.
    func lookup(_ hash: SHA256Digest, completion: @escaping (String?) -> Void)
    /// Makes a verified registration known to the fleet; fire and forget.
    func publish(_ hash: SHA256Digest, document: String)
}
