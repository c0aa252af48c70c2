// What one of Breakwater's purges asks of a cache in front (docs/CDN.md): the tags the tag
// header carries for the entries it reached, or everything; and where it started, which decides
// what the queue may turn it into ("Bounds", docs/CDN.md).

/// A purge as a CDN understands it.
package struct CDNPurge: Sendable, Equatable {
    /// Where a purge started: only an operator may have the cache in front emptied.
    package enum Origin: Sendable, Equatable {
        /// `POST /purge` on the admin listener.
        case admin
        /// A mutation's answer (`cache.invalidate_on_mutation`): any client can cause one.
        case mutation
        /// Another proxy of the fleet (never forwarded: it went out where it started).
        case fleet
    }

    /// Objects tagged with any of `tags`; empty when `everything`.
    package var tags: [String]
    /// Every object in front.
    package var everything: Bool
    /// Marked stale rather than removed.
    package var soft: Bool
    package var origin: Origin
    /// How long a cache in front may still hold answers this purge reaches (the longest
    /// `max-age` plus stale window Breakwater has sent): a failed call is retried at least this
    /// long after the purge, since until then the cache may serve what it should have dropped.
    package var mayBeHeldFor: Duration = .zero

    package static func tags(_ tags: [String], soft: Bool, origin: Origin = .admin) -> CDNPurge {
        CDNPurge(tags: tags, everything: false, soft: soft, origin: origin)
    }

    package static func everything(soft: Bool) -> CDNPurge {
        CDNPurge(tags: [], everything: true, soft: soft, origin: .admin)
    }

    private init(tags: [String], everything: Bool, soft: Bool, origin: Origin) {
        (self.tags, self.everything, self.soft, self.origin) = (tags, everything, soft, origin)
    }

    /// The CDN side of `purge`, with the tags `TagHeader` writes: `op:<name>`, `hash:<hex>`,
    /// `Type`, `Type:id`. Nil when the tag could never be in the header (a space, a comma or a
    /// byte outside printable ASCII): no cached object in front carries it. Purge-everything
    /// only comes from the admin endpoint.
    package init?(_ purge: PurgeRequest, origin: Origin = .admin) {
        let tag: String
        switch purge.selector {
        case .all:
            guard origin == .admin else { return nil }
            self = .everything(soft: purge.soft)
            return
        case .operation(let name): tag = "op:" + name
        case .document(let digest): tag = "hash:" + digest.hex
        case .tag(let name): tag = name
        }
        guard Self.isSent(tag) else { return nil }
        self = .tags([tag], soft: purge.soft, origin: origin)
    }

    /// A mutation's purge of the entities its answer named (`Type:id` tags), the tags no header
    /// can carry left out; nil when none is left.
    package static func entities(_ tags: [String]) -> CDNPurge? {
        let sent = tags.filter(isSent)
        return sent.isEmpty ? nil : .tags(sent, soft: false, origin: .mutation)
    }

    private static func isSent(_ tag: String) -> Bool {
        TagHeader.isCarried(tag) && tag != EntityTags.unchecked
    }

    /// The type of an entity tag `Type:id` (GraphQL names hold no colon); nil for any other tag.
    package static func entityType(of tag: String) -> Substring? {
        guard EntityTags.isEntityTag(tag), let colon = tag.firstIndex(of: ":") else { return nil }
        return tag[..<colon]
    }

    /// This purge with the ids of each type named more than `limit` times replaced by the type's
    /// tag (which every entry holding a `Type:id` also carries, docs/SCHEMA.md), and how many
    /// types were so collapsed.
    package func collapsingEntities(beyond limit: Int) -> (purge: CDNPurge, collapsed: Int) {
        guard tags.count > limit else { return (self, 0) }
        var perType: [Substring: Int] = [:]
        for tag in tags {
            if let type = Self.entityType(of: tag) { perType[type, default: 0] += 1 }
        }
        let crowded = Set(perType.filter { $0.value > limit }.keys)
        guard !crowded.isEmpty else { return (self, 0) }
        var collapsed = self
        collapsed.tags = []
        var added: Set<Substring> = []
        for tag in tags {
            if let type = Self.entityType(of: tag), crowded.contains(type) {
                if added.insert(type).inserted { collapsed.tags.append(String(type)) }
            } else {
                collapsed.tags.append(tag)
            }
        }
        return (collapsed, crowded.count)
    }
}
