// Sends the recorded spans to the OTLP/HTTP collector (docs/TRACING.md): the serving loops hand
// finished spans to a bounded queue (`SpanBatchQueue`, one short lock per handful of spans), and a
// loop and thread of its own take a batch each second, or as soon as a full one waits, encode it
// as OTLP JSON and POST it through Breakwater's own origin client (keep-alive, https verified).
// One export at a time; a slow or absent collector fills the queue, then spans are dropped and
// counted. Nothing of it runs on a loop that serves clients.

import BreakwaterCore
import Foundation
import Logging
import Synchronization

/// The span export of one process.
package final class TraceExporter: @unchecked Sendable {
    private let background: BackgroundLoop
    private var loop: EventLoop { background.loop }
    private let endpoint: OriginURL
    private let queue: Mutex<SpanBatchQueue>
    private let logger: Logger
    /// How long an export may take, and how long the stop waits for the last ones.
    static let timeout = Duration.seconds(5)
    /// Used on `loop` only.
    private var pool: OriginPool?
    /// Whether the last export failed: a failure is logged once, and the recovery once.
    private var isFailing = false

    package init(endpoint: OriginURL, settings: SpanBatchQueue.Settings = .init(), logger: Logger) throws(ServerError) {
        background = try BackgroundLoop(purpose: "tracing")
        self.endpoint = endpoint
        self.logger = logger
        queue = Mutex(SpanBatchQueue(settings: settings))
        do {
            pool = try OriginPool(
                loop: background.loop, origin: endpoint, timeout: Self.timeout, maxConnections: 1, tlsVerify: true,
                peer: "the OTLP collector")
        } catch {
            throw .setup("tracing: \(error)")
        }
        background.start(name: "breakwater-traces")
        let interval = settings.interval
        loop.enqueue { [self] in tick(every: interval) }
    }

    /// Queues finished spans; callable from any thread, returns at once. Past the queue's bound
    /// they are dropped and counted.
    package func submit(_ spans: [Span]) {
        guard !spans.isEmpty else { return }
        let fullBatch = queue.withLock { $0.add(spans) }
        if fullBatch { loop.enqueue { [self] in exportDue() } }
    }

    /// The export's figures now (any thread).
    package var figures: TraceExportFigures { queue.withLock { $0.figures } }

    private func tick(every interval: Duration) {
        exportDue()
        loop.schedule(after: interval) { [self] in tick(every: interval) }
    }

    /// Sends the batch due now, if one is and none is under way. On the loop.
    private func exportDue(everything: Bool = false) {
        guard let pool, let batch = queue.withLock({ $0.takeBatch(now: .now, everything: everything) }) else { return }
        let body = OTLPJSON.exportRequest(batch, version: BuildInfo.version)
        let request = UpstreamRequest(
            method: "POST", target: endpoint.path, headers: ["Content-Type": "application/json"], body: body)
        pool.send(request) { [self] result in
            let failure: String? =
                switch result {
                case .response(let response) where (200..<300).contains(response.status): nil
                case .response(let response): "the collector answered \(response.status)"
                case .failure(let failure): failure.detail ?? "no answer within \(Self.timeout)"
                }
            queue.withLock { $0.exportEnded(succeeded: failure == nil) }
            if let failure, !isFailing {
                isFailing = true
                logger.warning(
                    "trace export failed: spans are dropped until the collector answers",
                    metadata: ["tracing.endpoint": "\(endpoint)", "error": "\(failure)", "spans": "\(batch.count)"])
            } else if failure == nil, isFailing {
                isFailing = false
                logger.notice("trace export works again", metadata: ["tracing.endpoint": "\(endpoint)"])
            }
            // A backlog goes out at once, not a batch per tick.
            exportDue(everything: everything)
        }
    }

    /// For the process's stop, after the loops stopped: sends what waits (within `timeout`),
    /// counts what is left as dropped, then stops the loop.
    package func finish() {
        loop.enqueue { [self] in exportDue(everything: true) }
        let deadline = ContinuousClock.now + Self.timeout
        while ContinuousClock.now < deadline, !queue.withLock({ $0.isSettled }) {
            Thread.sleep(forTimeInterval: 0.005)
        }
        queue.withLock { $0.abandon() }
        stop()
    }

    /// Stops the loop (an export under way is dropped) and waits for its thread.
    package func stop() {
        background.stop()
    }
}
