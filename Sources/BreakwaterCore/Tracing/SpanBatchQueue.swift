// The spans waiting for export (docs/TRACING.md, "Cost and bounds"): a bounded queue that the
// exporter empties a batch at a time, one export in flight, so that a slow or absent collector
// costs memory up to the bound and then dropped spans, never a waiting event loop. The clock is
// passed in: the tests drive it by hand.

/// Spans waiting to be exported, and what became of those that went.
package struct SpanBatchQueue: Sendable {
    package struct Settings: Sendable, Equatable {
        /// Spans kept waiting at most; more are dropped (counted).
        package var maxQueued: Int
        /// Spans per export request at most.
        package var maxBatch: Int
        /// A batch goes out when it is full, or this long after the previous export.
        package var interval: Duration

        package init(maxQueued: Int = 2048, maxBatch: Int = 512, interval: Duration = .seconds(1)) {
            self.maxQueued = max(1, maxQueued)
            self.maxBatch = max(1, min(maxBatch, maxQueued))
            self.interval = interval
        }
    }

    package let settings: Settings
    private var waiting: [Span] = []
    /// Spans of the export under way; nil when none is.
    private var inFlight: Int?
    private var lastExport: ContinuousClock.Instant?
    /// `add` asked for an export at once and no batch was taken since: it asks once.
    private var askedForExport = false
    package private(set) var figures = TraceExportFigures()

    package init(settings: Settings = Settings()) {
        self.settings = settings
    }

    /// Queues `spans`, as many as the bound leaves room for; the rest are dropped and counted.
    /// Whether a full batch now waits with no export under way: the exporter should take it at
    /// once rather than at its next tick (said once until a batch is taken).
    @discardableResult
    package mutating func add(_ spans: some Collection<Span>) -> Bool {
        let room = settings.maxQueued - waiting.count
        if spans.count > room {
            figures.droppedQueueFull += spans.count - max(0, room)
            waiting.append(contentsOf: spans.prefix(max(0, room)))
        } else {
            waiting.append(contentsOf: spans)
        }
        figures.queued = waiting.count
        guard inFlight == nil, waiting.count >= settings.maxBatch, !askedForExport else { return false }
        askedForExport = true
        return true
    }

    /// The next batch to export, when one is due at `now`: nothing under way, spans waiting, and
    /// a full batch or `interval` since the previous export. `everything`: the process stops, the
    /// interval is not waited for.
    package mutating func takeBatch(now: ContinuousClock.Instant, everything: Bool = false) -> [Span]? {
        guard inFlight == nil, !waiting.isEmpty else { return nil }
        let isDue =
            everything || waiting.count >= settings.maxBatch
            || lastExport.map { now - $0 >= settings.interval } ?? true
        guard isDue else { return nil }
        let batch = Array(waiting.prefix(settings.maxBatch))
        waiting.removeFirst(batch.count)
        inFlight = batch.count
        lastExport = now
        askedForExport = false
        figures.queued = waiting.count
        return batch
    }

    /// The export under way ended: its spans were accepted by the collector, or are lost.
    package mutating func exportEnded(succeeded: Bool) {
        guard let count = inFlight else { return }
        inFlight = nil
        figures.exports += 1
        if succeeded {
            figures.exported += count
        } else {
            figures.failedExports += 1
            figures.droppedExportFailed += count
        }
    }

    /// Whether nothing waits and nothing is under way.
    package var isSettled: Bool { inFlight == nil && waiting.isEmpty }

    /// The process stops and the spans still waiting will never go: counted as dropped.
    package mutating func abandon() {
        figures.droppedAtStop += waiting.count
        waiting.removeAll()
        figures.queued = 0
    }
}
