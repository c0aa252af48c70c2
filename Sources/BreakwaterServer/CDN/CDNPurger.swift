// Purges the caches in front whenever this proxy purges (docs/CDN.md): the `CachePurger` hands
// over each purge that starts here, and every `cdn.targets` entry gets it, batched, retried and
// bounded by its `CDNTargetSender`. All of it runs on a loop and thread of its own, never on a
// loop that serves clients.

import BreakwaterCore
import Foundation
import Logging
import Synchronization

/// The purges for the caches in front, on their own event loop.
package final class CDNPurger: PurgeForwarding, @unchecked Sendable {
    private let background: BackgroundLoop
    private var loop: EventLoop { background.loop }
    private let senders: [CDNTargetSender]
    private let board: Board
    /// How long the stop waits for the last round (`cdn.timeout`).
    private let timeout: Duration

    /// Nil when `cdn.targets` is empty.
    /// `tracer`: each call is recorded as a span (docs/TRACING.md) when tracing export is on.
    static func make(_ settings: Configuration.CDN, logger: Logger, tracer: Tracer? = nil) throws(ServerError)
        -> CDNPurger?
    {
        settings.targets.isEmpty ? nil : try CDNPurger(settings, logger: logger, tracer: tracer)
    }

    private init(_ settings: Configuration.CDN, logger: Logger, tracer: Tracer?) throws(ServerError) {
        let background = try BackgroundLoop(purpose: "cdn")
        self.background = background
        let loop = background.loop
        let labels = CDNTarget.labels(of: settings.targets)
        let board = Board(
            zip(labels, settings.targets).map {
                CDNTargetStatus(label: $0.0, kind: $0.1.kind, statistics: CDNTargetStatistics())
            })
        self.board = board
        timeout = settings.timeout
        let queueSettings = CDNPurgeQueue.Settings(
            batchWindow: settings.batchWindow, retries: settings.retries, maxQueue: settings.maxQueue)
        senders = zip(labels, settings.targets).enumerated().map { index, pair in
            CDNTargetSender(
                label: pair.0, target: pair.1, settings: queueSettings, timeout: settings.timeout, loop: loop,
                logger: logger, tracer: tracer
            ) { statistics, isSettled in
                board.rows.withLock { $0[index].statistics = statistics }
                board.settled.withLock { $0[index] = isSettled }
            }
        }
        background.start(name: "breakwater-cdn")
    }

    /// Hands `purge` to every target; callable from any thread, returns at once.
    package func forward(_ purge: CDNPurge) {
        let senders = LoopBound(self.senders)
        loop.enqueue {
            for sender in senders.value { sender.enqueue(purge) }
        }
    }

    /// Every target's figures now.
    package var status: [CDNTargetStatus] { board.rows.withLock { $0 } }

    /// The figures `/stats` reads from any thread, written by the senders after every event.
    private final class Board: Sendable {
        let rows: Mutex<[CDNTargetStatus]>
        /// Per target: nothing waits, nothing in flight.
        let settled: Mutex<[Bool]>
        init(_ rows: [CDNTargetStatus]) {
            self.rows = Mutex(rows)
            settled = Mutex(rows.map { _ in true })
        }
    }

    /// For the process's stop: sends the purges still waiting at once, those waiting for a retry
    /// once more, waits up to `cdn.timeout` for their answers, logs and counts what is still
    /// unanswered as lost, then stops the loop.
    package func finish() {
        let senders = LoopBound(self.senders)
        let flushed = DispatchSemaphore(value: 0)
        // After every purge handed over before it (the loop runs its queue in order).
        loop.enqueue {
            for sender in senders.value { sender.flush() }
            flushed.signal()
        }
        let deadline = ContinuousClock.now + timeout
        _ = flushed.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000)))
        while ContinuousClock.now < deadline, !board.settled.withLock({ $0.allSatisfy { $0 } }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        let abandoned = DispatchSemaphore(value: 0)
        loop.enqueue {
            for sender in senders.value { sender.abandon() }
            abandoned.signal()
        }
        _ = abandoned.wait(timeout: .now() + .seconds(1))
        stop()
    }

    /// Stops the loop (calls in flight are dropped) and waits for its thread.
    package func stop() {
        background.stop()
    }
}
