// The one way entries are purged (README.md, "The response cache"; docs/FLEET.md): by the admin endpoint, by a
// mutation's answer, or by another proxy of the fleet. Applied locally first, then announced;
// a purge that starts here is also handed to the CDN purger (docs/CDN.md), one from the fleet never.

import Synchronization

/// Purges the local store and tells the fleet, if there is one.
package final class CachePurger: Sendable {
    private let store: any ResponseStoring
    private let clock: any FlowClock
    private let bus = Mutex<(any PurgeBus)?>(nil)
    /// Takes each purge that starts on this proxy for the caches in front. An object, not a
    /// closure: a closure kept in a `Mutex` is wrapped in one more reabstraction thunk at every
    /// `withLock` access, until calling it overflows the stack.
    private let forwarding = Mutex<(any PurgeForwarding)?>(nil)

    package init(store: any ResponseStoring, clock: any FlowClock) {
        self.store = store
        self.clock = clock
    }

    /// Connects the fleet: local purges are announced on `bus`, and its purges applied here.
    package func connect(_ bus: any PurgeBus) {
        self.bus.withLock { $0 = bus }
        bus.setRemotePurgeHandler { [weak self] purge in self?.applyRemote(purge) }
        bus.setLocalEntryCount { [store] in store.statistics.entries }
    }

    /// Hands every purge that starts on this proxy to `forwarding` (never those of other proxies:
    /// each purge reaches a cache in front once, from the proxy where it started).
    package func forwardLocalPurges(to forwarding: any PurgeForwarding) {
        self.forwarding.withLock { $0 = forwarding }
    }

    /// Applies an operator's `purge` here and announces it; returns how many local entries it
    /// reached.
    @discardableResult
    package func purge(_ purge: PurgeRequest) -> Int {
        let count = applyLocally(purge)
        bus.withLock { $0 }?.publish(purge)
        forward(CDNPurge(purge, origin: .admin))
        return count
    }

    /// Purges the entities a mutation's answer named (`Type:id` tags): each applied here and
    /// announced, and handed to the caches in front as one purge, so that its bounds can weigh
    /// them together (docs/CDN.md, "Bounds").
    /// Returns how many local entries it reached.
    @discardableResult
    package func purgeEntities(_ tags: [String]) -> Int {
        let bus = self.bus.withLock { $0 }
        var count = 0
        for tag in tags {
            let purge = PurgeRequest(selector: .tag(tag), soft: false)
            count += applyLocally(purge)
            bus?.publish(purge)
        }
        forward(CDNPurge.entities(tags))
        return count
    }

    /// Hands `purge` to the caches in front, with how long they may still hold what it reaches.
    private func forward(_ purge: CDNPurge?) {
        guard var purge, let forwarding = forwarding.withLock({ $0 }) else { return }
        purge.mayBeHeldFor = store.longestPublicLifetime
        forwarding.forward(purge)
    }

    /// Applies a purge another proxy announced (not announced again).
    package func applyRemote(_ purge: PurgeRequest) {
        applyLocally(purge)
    }

    /// A different schema is in use (`schemaKnown`: one is, rather than none). Answers stored
    /// unchecked (`EntityTags.unchecked`: no schema known yet, or one their document did not fit)
    /// are then dropped outright, everywhere in this process's store: the next request of each is
    /// fetched with the document checked against the schema, so its entity tags are complete and
    /// a per-user type in it is seen. Not announced: each proxy drops its own when it learns the
    /// schema (such entries never reach the fleet tier). Returns how many were dropped; nil when
    /// no schema is known (none is dropped: the entries stored meanwhile are unchecked too).
    @discardableResult
    package func schemaChanged(schemaKnown: Bool) -> Int? {
        guard schemaKnown else { return nil }
        return store.purge(.tag(EntityTags.unchecked), soft: false, now: clock.now)
    }

    /// A purge by an entity or a type also reaches the entries stored unchecked
    /// (`EntityTags.unchecked`), whose tags cannot say whether they hold it. Such entries live
    /// only in this proxy's memory (never in the fleet tier), so each proxy applies the rule itself.
    @discardableResult
    private func applyLocally(_ purge: PurgeRequest) -> Int {
        let now = clock.now
        var count = store.purge(purge.selector, soft: purge.soft, now: now)
        if case .tag(let tag) = purge.selector, EntityTags.isEntityTag(tag) {
            count += store.purge(.tag(EntityTags.unchecked), soft: purge.soft, now: now)
        }
        return count
    }
}
