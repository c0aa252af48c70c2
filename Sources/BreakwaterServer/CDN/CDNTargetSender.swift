// Carries out one target's `CDNPurgeQueue` (docs/CDN.md): sends its calls through Breakwater's
// origin client (keep-alive pools, https verified), feeds the answers back, arms the timer for
// its next deadline, and logs what it gives up. Lives on the CDN purger's own loop.

import BreakwaterCore
import Logging

/// One target's queue and the connections its calls go over; used on `loop` only.
final class CDNTargetSender {
    let label: String
    private let loop: EventLoop
    private var queue: CDNPurgeQueue
    private let timeout: Duration
    private let logger: Logger
    /// Records each call as a span, when tracing export is on.
    private let tracer: Tracer?
    /// A pool per endpoint (scheme, host and port): Varnish targets may name several.
    private var pools: [String: OriginPool] = [:]
    /// When the armed timer fires; nil when none is armed.
    private var armedFor: ContinuousClock.Instant?
    /// Called after every event with the queue's figures (for `/stats`, from any thread) and
    /// whether it is settled (for the stop).
    private let publish: (CDNTargetStatistics, Bool) -> Void
    /// Connections per endpoint: a round's calls go out side by side.
    private static let maxConnections = 4

    init(
        label: String, target: CDNTarget, settings: CDNPurgeQueue.Settings, timeout: Duration, loop: EventLoop,
        logger: Logger, tracer: Tracer? = nil, publish: @escaping (CDNTargetStatistics, Bool) -> Void
    ) {
        self.label = label
        self.tracer = tracer
        self.loop = loop
        self.timeout = timeout
        self.logger = logger
        self.publish = publish
        queue = CDNPurgeQueue(target: target, settings: settings)
    }

    func enqueue(_ purge: CDNPurge) {
        perform(queue.enqueue(purge, now: .now))
    }

    /// Sends what waits now, without waiting for the batch window, and the calls waiting for a
    /// retry once more (the process is stopping).
    func flush() {
        perform(queue.flush(now: .now))
    }

    /// Logs and counts as lost whatever is still unanswered (the stop's wait is over).
    func abandon() {
        perform(queue.abandon())
    }

    private func perform(_ actions: [CDNQueueAction]) {
        for action in actions {
            switch action {
            case .send(let call):
                send(call)
            case .gaveUp(let call, let outcome):
                logger.warning(
                    "cdn purge failed",
                    metadata: [
                        "cdn.target": "\(label)", "cdn.request": "\(call.request.method) \(call.request.url)",
                        "cdn.purges": .stringConvertible(call.request.purges),
                        "cdn.attempts": .stringConvertible(call.attempt), "error": "\(outcome.errorText)",
                    ])
            case .overflowed(let dropped, let everything):
                logger.warning(
                    everything
                        ? "cdn purge queue full: sending one purge of everything instead"
                        : "cdn purge queue full: purging the types of its entities instead",
                    metadata: ["cdn.target": "\(label)", "cdn.dropped": .stringConvertible(dropped)])
            case .lost(let purges, let reason):
                logger.warning(
                    "cdn purges lost at stop",
                    metadata: [
                        "cdn.target": "\(label)", "cdn.purges": .stringConvertible(purges), "error": "\(reason)",
                    ])
            }
        }
        publish(queue.statistics, queue.isSettled)
        arm()
    }

    private func send(_ call: CDNCall) {
        let request = call.request
        let pool: OriginPool
        do {
            pool = try self.pool(for: request.url)
        } catch {
            perform(queue.finished(call.id, .failed("\(error)"), now: .now))
            return
        }
        let upstream = UpstreamRequest(
            method: request.method, target: request.url.path, headers: request.headers, body: request.body)
        let trace = tracer.flatMap { tracer in tracer.beginRoot().map { (tracer, $0, tracer.now) } }
        pool.send(upstream) { [self] result in
            let outcome: CDNCallOutcome
            switch result {
            case .response(let response): outcome = .answered(status: response.status)
            case .failure(let failure): outcome = .failed(failure.detail ?? "no answer within cdn.timeout")
            }
            if let (tracer, context, start) = trace {
                var status: Int?
                if case .answered(let answered) = outcome { status = answered }
                tracer.record(
                    PurgeTrace.span(
                        context: context, target: label, method: request.method, url: request.url,
                        purges: request.purges, attempt: call.attempt, status: status,
                        failure: status == nil ? outcome.errorText : nil, start: start, end: tracer.now))
            }
            perform(queue.finished(call.id, outcome, now: .now))
        }
    }

    private func pool(for url: OriginURL) throws(ServerError) -> OriginPool {
        let endpoint = "\(url.scheme.rawValue)://\(url.hostHeader)"
        if let pool = pools[endpoint] { return pool }
        // Certificates are always verified: a purge API token must never go to an impostor.
        let pool = try OriginPool(
            loop: loop, origin: url, timeout: timeout, maxConnections: Self.maxConnections, tlsVerify: true,
            peer: "the CDN target \(label)")
        pools[endpoint] = pool
        return pool
    }

    /// Arms the timer for the queue's next deadline, unless one fires by then already.
    private func arm() {
        guard let deadline = queue.nextDeadline else { return }
        if let armedFor, armedFor <= deadline { return }
        armedFor = deadline
        loop.schedule(after: max(.zero, deadline - .now)) { [self] in
            // A later arming may have replaced this one; the tick is harmless either way.
            if armedFor == deadline { armedFor = nil }
            perform(queue.tick(now: .now))
        }
    }

}
