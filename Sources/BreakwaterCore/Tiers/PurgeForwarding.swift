// Where the purges that start on this proxy go besides its own cache and the fleet: the caches
// in front (docs/CDN.md).

/// Takes each purge that starts on this proxy, never one that came from another proxy.
package protocol PurgeForwarding: AnyObject, Sendable {
    /// Called on the thread that purged; must return at once. A mutation's purge arrives as one
    /// purge of all the entities its answer named, so that the bounds can see them together.
    func forward(_ purge: CDNPurge)
}
