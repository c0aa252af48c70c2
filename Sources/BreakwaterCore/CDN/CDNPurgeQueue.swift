// The purge queue of one target (docs/CDN.md, "Batching, retries and the queue bound"): purges
// arriving within `batch_window` of the first go out as one round of calls; one round is in
// flight at a time, and what arrives meanwhile waits for the next; a failed call is tried again
// after a backoff, `retries` times and then for as long as a cache in front may still hold an
// answer it purges (the longest `max-age` plus stale window sent), then given up. The bounds (docs/CDN.md, "Bounds"): a purge
// naming many entities of one type becomes that type's tag; past `max_queue` purges waiting
// (calls waiting for a retry included) entity tags become their types' tags, and only a queue
// holding an admin purge may become one purge of everything. A state machine on a clock passed
// in: the server feeds it events and performs the actions it returns.

/// What the queue asks the server to do.
package enum CDNQueueAction: Sendable, Equatable {
    /// Send this call now and report its outcome with `finished`.
    case send(CDNCall)
    /// A call was given up after its last attempt (logged at warning, counted as failed).
    case gaveUp(CDNCall, CDNCallOutcome)
    /// The waiting purges passed `max_queue` (logged): their entities became their types, or,
    /// with an admin purge among them, everything became one purge of everything.
    case overflowed(dropped: Int, everything: Bool)
    /// Purges that will never reach the target: the process stopped before their call was
    /// taken (logged at warning, counted as lost).
    case lost(purges: Int, reason: String)
}

/// One target's purges, from arrival to the target's answer.
package struct CDNPurgeQueue: Sendable {
    /// The `cdn` settings the queue follows.
    package struct Settings: Sendable, Equatable {
        package var batchWindow: Duration
        package var retries: Int
        package var maxQueue: Int
        package var backoff: CDNRetrySchedule
        /// Ids of one type a purge may name before it becomes the type's tag.
        package var entitiesPerType: Int

        package init(
            batchWindow: Duration, retries: Int, maxQueue: Int, backoff: CDNRetrySchedule = CDNRetrySchedule(),
            entitiesPerType: Int = CDNPurgeQueue.entitiesPerType
        ) {
            (self.batchWindow, self.retries, self.maxQueue, self.backoff) = (batchWindow, retries, max(1, maxQueue), backoff)
            self.entitiesPerType = max(1, entitiesPerType)
        }
    }

    /// A purge naming more ids of one type becomes the type's tag (docs/CDN.md, "Bounds"): one
    /// type's ids then fit one call of every kind (Cloudflare takes 100 tags, Fastly 256, and 64
    /// tags of up to 60 bytes fit Varnish's 4,000-byte header), and a mutation that touched more
    /// has touched much of its type anyway.
    package static let entitiesPerType = 64

    package let target: CDNTarget
    private let settings: Settings
    /// Purges merged, waiting for their round.
    private var pending = CDNBatch()
    /// When the waiting purges' window closes (set by the first of them).
    private var windowCloses: ContinuousClock.Instant?
    /// Calls of the round in flight, by id.
    private var inFlight: [Int: CDNCall] = [:]
    /// Failed calls waiting for their next attempt.
    private var retrying: [(due: ContinuousClock.Instant, call: CDNCall)] = []
    private var nextID = 0
    /// The process is stopping: a failed call is not retried but lost.
    private var isStopping = false
    package private(set) var statistics = CDNTargetStatistics()

    package init(target: CDNTarget, settings: Settings) {
        self.target = target
        self.settings = settings
    }

    /// The earliest moment `tick` has something to do; nil while there is nothing to wait for.
    package var nextDeadline: ContinuousClock.Instant? {
        let retry = retrying.map(\.due).min()
        let round = inFlight.isEmpty ? windowCloses : nil
        switch (retry, round) {
        case (let a?, let b?): return min(a, b)
        case (let a?, nil): return a
        case (nil, let b?): return b
        case (nil, nil): return nil
        }
    }

    /// Takes a purge; its round starts when the window of the first waiting purge closes.
    package mutating func enqueue(_ purge: CDNPurge, now: ContinuousClock.Instant) -> [CDNQueueAction] {
        statistics.purges += 1
        let (bounded, collapsed) = purge.collapsingEntities(beyond: settings.entitiesPerType)
        statistics.collapses += collapsed
        pending.add(bounded)
        if purge.mayBeHeldFor > .zero { pending.keepTrying(until: now + purge.mayBeHeldFor) }
        if windowCloses == nil { windowCloses = now + settings.batchWindow }
        var actions = bound(now: now)
        actions += tick(now: now)
        return actions
    }

    /// Purges waiting: merged tags not yet sent, and those of calls waiting for a retry.
    private var waiting: Int { pending.count + retrying.reduce(0) { $0 + $1.call.request.purges } }

    /// Keeps what waits within `max_queue`: past it, calls waiting for a retry rejoin the next
    /// round, entity tags become their types' tags, and only if that is not enough and an admin
    /// purge is among them does everything become one purge of everything. A flood of mutations
    /// thus costs at most the types it names, never the whole cache in front.
    private mutating func bound(now: ContinuousClock.Instant) -> [CDNQueueAction] {
        let dropped = waiting
        guard dropped > settings.maxQueue else { return [] }
        let rejoined = !retrying.isEmpty
        if let firstDue = retrying.map(\.due).min() {
            // The round they rejoin keeps their backoff.
            windowCloses = max(windowCloses ?? now + settings.batchWindow, firstDue)
            for entry in retrying {
                pending.add(entry.call.request.carried)
                pending.keepTrying(until: entry.call.keepTryingUntil)
                pending.rejoined(after: entry.call.attempt)
            }
            retrying = []
        }
        let collapsed = pending.collapseEntities()
        let everything = pending.count > settings.maxQueue && pending.holdsAdminPurge
        if everything { pending.overflow() }
        // Types alone past `max_queue` stay as they are: nothing to log at every purge.
        guard rejoined || collapsed > 0 || everything else { return [] }
        statistics.collapses += collapsed
        statistics.overflows += 1
        return [.overflowed(dropped: dropped, everything: everything)]
    }

    /// Sends what is due at `now`: retries whose wait is over, and the next round once its window
    /// closed and the previous round is answered.
    package mutating func tick(now: ContinuousClock.Instant) -> [CDNQueueAction] {
        var actions: [CDNQueueAction] = []
        retrying.sort { $0.due < $1.due }
        while let first = retrying.first, first.due <= now {
            retrying.removeFirst()
            var call = first.call
            call.attempt += 1
            call.sentAt = now
            inFlight[call.id] = call
            actions.append(.send(call))
        }
        if let closes = windowCloses, closes <= now, inFlight.isEmpty, !pending.isEmpty {
            for request in target.requests(for: pending) {
                let call = CDNCall(
                    id: nextID, request: request, attempt: pending.attemptsMade + 1, sentAt: now,
                    keepTryingUntil: pending.keepTryingUntil)
                nextID += 1
                inFlight[call.id] = call
                actions.append(.send(call))
            }
            pending = CDNBatch()
            windowCloses = nil
        }
        updateQueued()
        return actions
    }

    /// Sends what waits without waiting for its window to close, and the calls waiting for a
    /// retry once more (the process is stopping: whatever fails from now on is lost).
    package mutating func flush(now: ContinuousClock.Instant) -> [CDNQueueAction] {
        isStopping = true
        if !pending.isEmpty { windowCloses = now }
        for index in retrying.indices { retrying[index].due = min(retrying[index].due, now) }
        return tick(now: now)
    }

    /// Gives up everything still waiting or in flight (the stop's `cdn.timeout` is over).
    package mutating func abandon() -> [CDNQueueAction] {
        let purges = waiting + inFlight.values.reduce(0) { $0 + $1.request.purges }
        (pending, windowCloses, inFlight, retrying) = (CDNBatch(), nil, [:], [])
        updateQueued()
        guard purges > 0 else { return [] }
        statistics.lost += purges
        return [.lost(purges: purges, reason: "no answer within cdn.timeout of the stop")]
    }

    /// Nothing waits, for its round or for a retry, and no call is in flight.
    package var isSettled: Bool { pending.isEmpty && inFlight.isEmpty && retrying.isEmpty }

    /// Takes the outcome of call `id`'s attempt: counted, retried after a backoff, or given up.
    package mutating func finished(_ id: Int, _ outcome: CDNCallOutcome, now: ContinuousClock.Instant)
        -> [CDNQueueAction]
    {
        guard let call = inFlight.removeValue(forKey: id) else { return [] }
        var actions: [CDNQueueAction] = []
        if case .answered = outcome { statistics.recordDuration(now - call.sentAt) }
        if outcome.succeeded {
            statistics.sent += 1
        } else {
            statistics.lastError = outcome.errorText
            if isStopping {
                statistics.lost += call.request.purges
                actions.append(.lost(purges: call.request.purges, reason: outcome.errorText))
            } else if call.triesAgain(after: outcome, retries: settings.retries, now: now) {
                statistics.retried += 1
                retrying.append((now + settings.backoff.delay(after: call.attempt), call))
                actions += bound(now: now)
            } else {
                statistics.failed += 1
                actions.append(.gaveUp(call, outcome))
            }
        }
        actions += tick(now: now)
        return actions
    }

    private mutating func updateQueued() {
        statistics.queued = waiting
    }
}
