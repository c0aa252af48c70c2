// The purge queue of one target (docs/CDN.md, "Batching, retries and the queue bound"): purges
// arriving within `batch_window` of the first go out as one round of calls; one round is in
// flight at a time, and what arrives meanwhile waits for the next; a failed call is tried again
// after a backoff, `retries` times, then given up; past `max_queue` waiting purges, they are
// replaced by one purge of everything. A state machine on a clock passed in: the server feeds it
// events and performs the actions it returns.

/// What the queue asks the server to do.
package enum CDNQueueAction: Sendable, Equatable {
    /// Send this call now and report its outcome with `finished`.
    case send(CDNCall)
    /// A call was given up after its last attempt (logged at warning, counted as failed).
    case gaveUp(CDNCall, CDNCallOutcome)
    /// The waiting purges passed `max_queue` and became one purge of everything (logged).
    case overflowed(dropped: Int)
}

/// One target's purges, from arrival to the target's answer.
package struct CDNPurgeQueue: Sendable {
    /// The `cdn` settings the queue follows.
    package struct Settings: Sendable, Equatable {
        package var batchWindow: Duration
        package var retries: Int
        package var maxQueue: Int
        package var backoff: CDNRetrySchedule

        package init(batchWindow: Duration, retries: Int, maxQueue: Int, backoff: CDNRetrySchedule = CDNRetrySchedule()) {
            (self.batchWindow, self.retries, self.maxQueue, self.backoff) = (batchWindow, retries, max(1, maxQueue), backoff)
        }
    }

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
        pending.add(purge)
        if windowCloses == nil { windowCloses = now + settings.batchWindow }
        var actions: [CDNQueueAction] = []
        if pending.count > settings.maxQueue {
            let dropped = pending.count
            pending.overflow()
            statistics.overflows += 1
            actions.append(.overflowed(dropped: dropped))
        }
        actions += tick(now: now)
        return actions
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
                let call = CDNCall(id: nextID, request: request, attempt: 1, sentAt: now)
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

    /// Sends what waits without waiting for its window to close (the process is stopping).
    package mutating func flush(now: ContinuousClock.Instant) -> [CDNQueueAction] {
        if !pending.isEmpty { windowCloses = now }
        return tick(now: now)
    }

    /// Nothing waits and no call is in flight (calls waiting for a retry aside).
    package var isSettled: Bool { pending.isEmpty && inFlight.isEmpty }

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
            if outcome.isRetryable && call.attempt <= settings.retries {
                statistics.retried += 1
                retrying.append((now + settings.backoff.delay(after: call.attempt), call))
            } else {
                statistics.failed += 1
                actions.append(.gaveUp(call, outcome))
            }
        }
        actions += tick(now: now)
        return actions
    }

    private mutating func updateQueued() {
        statistics.queued = pending.count + retrying.reduce(0) { $0 + $1.call.request.purges }
    }
}
