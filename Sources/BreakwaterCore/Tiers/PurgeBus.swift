// How purges reach the other proxies of a fleet (docs/FLEET.md, "What is shared" and "No purge lost").

/// Carries purges between proxies. The local purge is applied first by `CachePurger`; the bus
/// only tells the others (and the fleet tier), and hands their purges to `onRemotePurge`.
package protocol PurgeBus: AnyObject, Sendable {
    /// Announces a purge applied here.
    func publish(_ purge: PurgeRequest)
    /// Called with each purge another proxy announced, on any thread.
    func setRemotePurgeHandler(_ handler: @escaping @Sendable (PurgeRequest) -> Void)
    /// Tells the bus how many entries the local cache holds (it drops them when purges were lost).
    func setLocalEntryCount(_ count: @escaping @Sendable () -> Int)
}

extension PurgeBus {
    package func setLocalEntryCount(_ count: @escaping @Sendable () -> Int) {}
}
