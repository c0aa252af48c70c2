// The purges a target has not sent yet, merged (docs/CDN.md, "Batching"): a tag named twice is
// sent once, a hard purge of a tag covers a soft one, and purge-everything covers every tag;
// past the queue's bound, entity tags give way to their types' tags ("Bounds", docs/CDN.md).

/// Purges merged into what one round of calls to a target says.
package struct CDNBatch: Sendable, Equatable {
    /// Tags to remove, in the order they first came.
    package private(set) var hardTags: [String] = []
    /// Tags to mark stale (none of them is also in `hardTags`).
    package private(set) var softTags: [String] = []
    /// Everything goes: nil, or whether softly.
    package private(set) var everything: Bool?
    /// An admin purge is among them: only then may an overflow become purge-everything.
    package private(set) var holdsAdminPurge = false
    /// Until when a failed call of this batch is retried: the latest moment a cache in front may
    /// still hold an answer one of its purges reaches (nil: no purge said).
    package private(set) var keepTryingUntil: ContinuousClock.Instant?
    /// Attempts already made by calls that rejoined the batch (their backoff goes on from there).
    package private(set) var attemptsMade = 0
    private var hardSet: Set<String> = []
    private var softSet: Set<String> = []

    package init() {}

    package var isEmpty: Bool { hardTags.isEmpty && softTags.isEmpty && everything == nil }

    /// Purges waiting: each tag once, purge-everything as one.
    package var count: Int { hardTags.count + softTags.count + (everything == nil ? 0 : 1) }

    package mutating func add(_ purge: CDNPurge) {
        if purge.origin == .admin { holdsAdminPurge = true }
        if purge.everything {
            let merged = (everything ?? true) && purge.soft
            self = emptied()
            everything = merged
        } else {
            for tag in purge.tags { add(tag, soft: purge.soft) }
        }
    }

    /// Failed calls of this batch are retried until `until` at least.
    package mutating func keepTrying(until: ContinuousClock.Instant?) {
        guard let until else { return }
        keepTryingUntil = max(keepTryingUntil ?? until, until)
    }

    /// A call that had made `attempts` attempts rejoined the batch.
    package mutating func rejoined(after attempts: Int) {
        attemptsMade = max(attemptsMade, attempts)
    }

    /// No purge, with what the batch knows about its purges kept: whether an admin purge is among
    /// them, how long to keep trying, the attempts made.
    private func emptied() -> CDNBatch {
        var empty = CDNBatch()
        (empty.holdsAdminPurge, empty.keepTryingUntil, empty.attemptsMade) = (holdsAdminPurge, keepTryingUntil, attemptsMade)
        return empty
    }

    /// The origin of the calls made of this batch, as far as the bound is concerned.
    package var origin: CDNPurge.Origin { holdsAdminPurge ? .admin : .mutation }

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

    /// Replaces every `Type:id` tag by its type's tag (hard wins, as for any tag); returns how
    /// many types this collapsed.
    @discardableResult
    package mutating func collapseEntities() -> Int {
        var types: Set<Substring> = []
        for tag in hardTags + softTags {
            if let type = CDNPurge.entityType(of: tag) { types.insert(type) }
        }
        guard !types.isEmpty else { return 0 }
        let (hard, soft) = (hardTags, softTags)
        self = emptied()
        for tag in hard { add(CDNPurge.entityType(of: tag).map(String.init) ?? tag, soft: false) }
        for tag in soft { add(CDNPurge.entityType(of: tag).map(String.init) ?? tag, soft: true) }
        return types.count
    }

    /// Replaces every waiting purge by one purge of everything (the queue's overflow rule for a
    /// batch that holds an admin purge).
    package mutating func overflow() {
        self = emptied()
        (everything, holdsAdminPurge) = (false, true)
    }
}
