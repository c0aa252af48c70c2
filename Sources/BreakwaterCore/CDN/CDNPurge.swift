// What one of Breakwater's purges asks of a cache in front (docs/CDN.md): the tags the tag
// header carries for the entries it reached, or everything.

/// A purge as a CDN understands it.
package enum CDNPurge: Sendable, Equatable {
    /// Objects tagged with any of `tags`; `soft`: marked stale rather than removed.
    case tags([String], soft: Bool)
    case everything(soft: Bool)

    /// The CDN side of `purge`, with the tags `TagHeader` writes: `op:<name>`, `hash:<hex>`,
    /// `Type`, `Type:id`. Nil when the tag could never be in the header (a space, a comma or a
    /// byte outside printable ASCII): no cached object in front carries it.
    package init?(_ purge: PurgeRequest) {
        let tag: String
        switch purge.selector {
        case .all: self = .everything(soft: purge.soft); return
        case .operation(let name): tag = "op:" + name
        case .document(let digest): tag = "hash:" + digest.hex
        case .tag(let name): tag = name
        }
        guard TagHeader.isCarried(tag), tag != EntityTags.unchecked else { return nil }
        self = .tags([tag], soft: purge.soft)
    }

    package var isSoft: Bool {
        switch self {
        case .tags(_, let soft), .everything(let soft): soft
        }
    }
}
