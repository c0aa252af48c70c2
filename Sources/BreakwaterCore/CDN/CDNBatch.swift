// The purges a target has not sent yet, merged (docs/CDN.md, "Batching"): a tag named twice is
// sent once, a hard purge of a tag covers a soft one, and purge-everything covers every tag.

/// Purges merged into what one round of calls to a target says.
package struct CDNBatch: Sendable, Equatable {
    /// Tags to remove, in the order they first came.
    package private(set) var hardTags: [String] = []
    /// Tags to mark stale (none of them is also in `hardTags`).
    package private(set) var softTags: [String] = []
    /// Everything goes: nil, or whether softly.
    package private(set) var everything: Bool?
    private var hardSet: Set<String> = []
    private var softSet: Set<String> = []

    package init() {}

    package var isEmpty: Bool { hardTags.isEmpty && softTags.isEmpty && everything == nil }

    /// Purges waiting: each tag once, purge-everything as one.
    package var count: Int { hardTags.count + softTags.count + (everything == nil ? 0 : 1) }

    package mutating func add(_ purge: CDNPurge) {
        switch purge {
        case .everything(let soft):
            let merged = (everything ?? true) && soft
            self = CDNBatch()
            everything = merged
        case .tags(let tags, let soft):
            for tag in tags { add(tag, soft: soft) }
        }
    }

    private mutating func add(_ tag: String, soft: Bool) {
        // A hard purge of everything pending covers any tag; a soft one covers soft tags.
        if let everything, !everything || soft { return }
        if soft {
            guard !hardSet.contains(tag), softSet.insert(tag).inserted else { return }
            softTags.append(tag)
        } else {
            guard hardSet.insert(tag).inserted else { return }
            hardTags.append(tag)
            if softSet.remove(tag) != nil { softTags.removeAll { $0 == tag } }
        }
    }

    /// Replaces every waiting purge by one purge of everything (the queue's overflow rule).
    package mutating func overflow() {
        self = CDNBatch()
        everything = false
    }
}
