// The export queue on a manual clock (docs/TRACING.md, "Cost and bounds"): the bound and what
// it drops, batches by size and by interval, one export in flight, failures counted.

import BreakwaterCore
import Testing

struct SpanBatchQueueTests {
    static let start = ContinuousClock.now
    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start + .milliseconds(milliseconds) }

    static func spans(_ count: Int) -> [Span] {
        let ids = RandomTraceIDs(seed: 5)
        return (0..<count).map { _ in
            Span(
                name: "s", kind: .internal,
                context: SpanContext(traceID: ids.nextTraceID(), spanID: ids.nextSpanID(), flags: 1), parent: nil,
                start: 1, end: 2)
        }
    }

    static func queue(maxQueued: Int = 10, maxBatch: Int = 4, interval: Duration = .seconds(1)) -> SpanBatchQueue {
        SpanBatchQueue(settings: .init(maxQueued: maxQueued, maxBatch: maxBatch, interval: interval))
    }

    @Test func spansPastTheBoundAreDroppedAndCounted() {
        var queue = Self.queue()
        queue.add(Self.spans(7))
        queue.add(Self.spans(7))
        #expect(queue.figures.queued == 10)
        #expect(queue.figures.droppedQueueFull == 4)
        queue.add(Self.spans(1))
        #expect(queue.figures.droppedQueueFull == 5)
        #expect(queue.figures.dropped == 5)
    }

    @Test func aFullBatchAsksForAnExportAtOnceAndGoesWithoutWaitingForTheInterval() {
        var queue = Self.queue()
        let asksAtThree = queue.add(Self.spans(3))
        #expect(!asksAtThree, "not a full batch yet")
        let asksAtFour = queue.add(Self.spans(1))
        #expect(asksAtFour, "a full batch waits")
        let asksAgain = queue.add(Self.spans(1))
        #expect(!asksAgain, "asked once until a batch is taken")
        let full = queue.takeBatch(now: Self.at(0))
        #expect(full?.count == 4)
        queue.exportEnded(succeeded: true)
        queue.add(Self.spans(4))
        let fullAgain = queue.takeBatch(now: Self.at(10))
        #expect(fullAgain?.count == 4, "full: the interval is not waited for")
    }

    @Test func aPartialBatchGoesOnceTheIntervalPassed() {
        var queue = Self.queue()
        queue.add(Self.spans(1))
        let first = queue.takeBatch(now: Self.at(0))
        #expect(first?.count == 1, "the first export is due at once")
        queue.exportEnded(succeeded: true)
        queue.add(Self.spans(2))
        let early = queue.takeBatch(now: Self.at(999))
        #expect(early == nil)
        let onTime = queue.takeBatch(now: Self.at(1_000))
        #expect(onTime?.count == 2)
        queue.exportEnded(succeeded: true)
        #expect(queue.figures.exported == 3)
        #expect(queue.figures.exports == 2)
        #expect(queue.isSettled)
    }

    @Test func oneExportAtATimeAndAFailedOneIsCountedAsDropped() {
        var queue = Self.queue()
        queue.add(Self.spans(9))
        let under = queue.takeBatch(now: Self.at(0))
        #expect(under?.count == 4)
        let second = queue.takeBatch(now: Self.at(5_000))
        #expect(second == nil, "one export in flight")
        let asksWhileOneRuns = queue.add(Self.spans(1))
        #expect(!asksWhileOneRuns, "a full batch waits, but an export is under way")
        queue.exportEnded(succeeded: false)
        #expect(queue.figures.droppedExportFailed == 4)
        #expect(queue.figures.failedExports == 1)
        let next = queue.takeBatch(now: Self.at(5_000))
        #expect(next?.count == 4)
        queue.exportEnded(succeeded: true)
        #expect(queue.figures.queued == 2)
    }

    @Test func theStopSendsEverythingWithoutWaitingAndCountsWhatIsLeft() {
        var queue = Self.queue()
        queue.add(Self.spans(1))
        _ = queue.takeBatch(now: Self.at(0))
        queue.exportEnded(succeeded: true)
        queue.add(Self.spans(3))
        let notYet = queue.takeBatch(now: Self.at(1))
        #expect(notYet == nil)
        let everything = queue.takeBatch(now: Self.at(1), everything: true)
        #expect(everything?.count == 3)
        queue.exportEnded(succeeded: true)
        queue.add(Self.spans(2))
        queue.abandon()
        #expect(queue.figures.droppedAtStop == 2)
        #expect(queue.figures.queued == 0)
    }

    @Test func renderedInStatsAndMetricsFromTheStart() {
        var report = StatsReport(
            uptime: .seconds(1), requests: RequestStatistics(), cache: StoreStatistics(), apqEntries: 0,
            apqRegistered: 0, coalesced: 0)
        #expect(!report.prometheus().contains("breakwater_trace_"), "no endpoint, no series")
        report.tracing = TraceExportFigures()
        let metrics = report.prometheus()
        #expect(metrics.contains("breakwater_trace_spans_exported_total 0"))
        for reason in ["queue_full", "export_failed", "stopped"] {
            #expect(metrics.contains("breakwater_trace_spans_dropped_total{reason=\"\(reason)\"} 0"))
        }
        let json = String(decoding: report.json(), as: UTF8.self)
        #expect(json.contains(#""tracing":{"queued":0,"exported":0,"dropped":{"queue_full":0,"export_failed":0,"stopped":0}"#))
    }
}
