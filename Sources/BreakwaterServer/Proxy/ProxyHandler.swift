// The GraphQL listener of one event loop: runs each request's `RequestFlow` and each fetch's
// `FetchFlow` (BreakwaterCore/Flow), and performs the steps they return: send an answer, ask a
// fleet tier, join the in-flight table, send to the origin through this loop's pool. It decides
// nothing about caching itself.

import BreakwaterCore

/// Serves client requests on one event loop. Its settings and pool are replaced on its own
/// loop when the configuration is reloaded.
final class ProxyHandler: HTTPHandler, @unchecked Sendable {
    let loop: EventLoop
    private(set) var settings: ProxySettings
    private var environment: FlowEnvironment
    private var pool: any OriginSending
    /// The way to the origin given at creation instead of a pool (the in-process tests' origin),
    /// kept across reloads.
    private let givenPool: (any OriginSending)?
    private let cache: ProcessCache
    private let tiers: LoopTiers
    let statistics: LoopStatistics
    /// This loop's access-log lines (docs/OPERATING.md), handed to the log writer in batches.
    private let accessLog: ProxyLogBuffer
    /// Requests this loop already resolved: repeated ones skip parsing (a popular hit).
    private let memo = OperationMemo()
    /// The misses this loop leads, by key, with the client that started each: where a cancel from
    /// the in-flight table finds its run (and not a newer one of the key, started meanwhile).
    private var leading: [CacheKey: (run: FetchRun, leader: SharedRequestContext)] = [:]

    init(
        loop: EventLoop, settings: ProxySettings, cache: ProcessCache, statistics: LoopStatistics,
        accessLog: ProxyLogBuffer, tiers: LoopTiers = LoopTiers(), pool givenPool: (any OriginSending)? = nil
    ) throws(ServerError) {
        self.accessLog = accessLog
        self.loop = loop
        self.settings = settings
        self.givenPool = givenPool
        if let givenPool {
            pool = givenPool
        } else {
            pool = try settings.makePool(loop: loop)
        }
        self.cache = cache
        self.tiers = tiers
        self.statistics = statistics
        environment = settings.flowEnvironment(cache: cache, tiers: tiers)
    }

    /// Takes new settings for the requests that arrive from now on; call on this loop.
    func apply(_ settings: ProxySettings) throws(ServerError) {
        if givenPool == nil, settings.configuration.origin != self.settings.configuration.origin {
            pool = try settings.makePool(loop: loop)
        }
        self.settings = settings
        environment = settings.flowEnvironment(cache: cache, tiers: tiers)
        memo.removeAll()
    }

    /// Another schema is in use: operations remembered with their upstream text are forgotten.
    /// Call on this loop.
    func schemaChanged() {
        memo.removeAll()
    }

    func handle(_ request: consuming HTTPRequest, responder: any HTTPResponder) {
        // With tracing export on, every request goes the traced way; without it, none does.
        if let tracer = settings.tracer { return handleTraced(request, responder: responder, tracer: tracer) }
        let started = MonotonicTime.now
        var flow = RequestFlow(request: request, environment: environment, memo: memo)
        let step = flow.start()
        perform(step, flow: &flow, responder: responder, started: started)
    }

    /// `handle` with the request's trace (docs/TRACING.md): begun from the client's
    /// `traceparent` or anew, carried by the flow into the fetch it may plan, and, when recorded,
    /// ended with the answer by a `TracedResponder`.
    private func handleTraced(_ request: consuming HTTPRequest, responder: any HTTPResponder, tracer: Tracer) {
        let started = MonotonicTime.now
        let trace = tracer.begin(request)
        var flow = RequestFlow(request: request, environment: environment, memo: memo)
        flow.trace = trace
        let step = flow.start()
        guard trace.isRecorded else { return perform(step, flow: &flow, responder: responder, started: started) }
        trace.decided = tracer.now
        trace.operationName = flow.operation?.operationName ?? flow.requested.operationName
        trace.operationKind = flow.operation?.kind
        trace.documentHash = flow.operation?.document.digest ?? flow.requested.digest
        if case .reply(let reply) = step { trace.bypassReason = reply.bypassReason }
        perform(step, flow: &flow, responder: TracedResponder(responder, trace: trace, tracer: tracer), started: started)
    }

    /// Counts and logs an answer the HTTP engine gave a request it could not read: its code in
    /// `errors` and the access log like any error answer, no cache decision (no `X-Cache`).
    func refused(_ response: HTTPResponse, remoteAddress: String, version: HTTPVersion) {
        let errorCode = AnswerErrorCode.code(in: response.completeBody)
        statistics.record {
            $0.recordRequest(operationName: nil, cache: nil, duration: .zero, version: version)
            $0.recordResponse(status: response.status, errorCode: errorCode, clientName: nil, clientVersion: nil)
        }
        guard accessLog.isOn else { return }
        accessLog.append { buffer, format in
            AccessLogRecord.append(
                to: &buffer, format: format, time: .now, client: remoteAddress, method: nil, version: version,
                status: response.status,
                cache: nil, operation: nil, hash: nil, errorCode: errorCode, bypassReason: nil, duration: .zero,
                originStatus: nil, originDuration: nil, bytes: response.bodyCount, requestID: nil, userAgent: nil,
                clientName: nil, clientVersion: nil)
        }
    }

    // MARK: - Request steps

    /// `flow` is borrowed, not copied: a copy retained and released each of its fields. `step` is
    /// consumed: its answer is then the context's alone, and stamping the request id on it copies
    /// nothing.
    private func perform(
        _ step: consuming RequestFlow.Step, flow: inout RequestFlow, responder: any HTTPResponder,
        started: MonotonicTime
    ) {
        for effect in flow.takeEffects() { perform(effect) }
        let context = RequestContext(
            started: started, method: flow.request.method, operationName: flow.operation?.operationName,
            requestedOperationName: flow.requested.operationName,
            documentHash: flow.operation?.document.digest ?? flow.requested.digest, identity: flow.request.identity)
        func shared(refetch: SharedRequestContext.Refetch? = nil) -> SharedRequestContext {
            SharedRequestContext(
                context, client: flow.client, refetch: refetch, responder: responder, statistics: statistics,
                accessLog: accessLog, trace: flow.trace)
        }
        switch consume step {
        case .reply(let reply):
            context.finish(reply, to: responder, statistics: statistics, accessLog: accessLog)
        case .lookupDocument(let digest):
            guard let documents = tiers.documents else { preconditionFailure("lookupDocument without a tier") }
            documents.lookup(digest) { [self, flow] text in
                var flow = flow
                let next = flow.documentLookedUp(text)
                perform(next, flow: &flow, responder: responder, started: started)
            }
        case .fetch(let plan):
            run(plan, answering: .client(shared()))
        case .join(let plan):
            guard let key = plan.key else { preconditionFailure("join without a key") }
            let waiter = FetchWaiter(shared(refetch: SharedRequestContext.Refetch(plan: plan, handler: self)))
            let context = waiter.context
            switch cache.inFlight.join(key, waiter: waiter, now: environment.clock.now) {
            case .startFetch:
                // The run first: a client gone already cancels it at once.
                runCoalesced(plan, key: key, leader: context)
                responder.whenClientLeaves { [self] in clientLeft(context, key: key) }
            case .wait:
                if let trace = flow.trace, trace.isRecorded, let tracer = settings.tracer { trace.waitStarted = tracer.now }
                responder.whenClientLeaves { [self] in clientLeft(context, key: key) }
            case .fetchAlone: fetchAlone(waiter)
            }
        case .replyAndRefresh(let reply, let plan):
            context.finish(reply, to: responder, statistics: statistics, accessLog: accessLog)
            guard let key = plan.key else { preconditionFailure("refresh without a key") }
            if cache.inFlight.beginRefresh(key) == .startRefresh { runCoalesced(plan, key: key) }
        }
    }

    private func perform(_ effect: RequestFlow.Effect) {
        switch effect {
        case .register(let document, let publish):
            environment.registry.register(document.digest, document: document.text)
            if publish { tiers.documents?.publish(document.digest, document: document.text) }
        }
    }

    // MARK: - Fetch steps

    /// Runs the fetch of `key` and answers every waiter that joined it, each on its own loop.
    /// The fetch belongs to no client: a waiter that disconnects, the first included, cancels
    /// nothing while others wait; the last one leaving cancels it (`clientLeft`).
    /// `leader`: the client whose miss started it (not a refresh), cancelled when its last waiter leaves.
    private func runCoalesced(_ plan: FetchPlan, key: CacheKey, leader: SharedRequestContext? = nil) {
        let run = FetchRun(plan: plan, environment: environment, answering: .waiters(of: key, in: cache.inFlight))
        if let leader { leading[key] = (run, leader) }
        advance(run, run.start())
    }

    /// The client of `context`, waiting on `key`'s fetch, went away (a reset stream, a closed
    /// connection): it leaves the in-flight table, and when nobody else waits, the table says
    /// to cancel the fetch, which the loop that leads it does (CVE-2023-44487: a reset stream
    /// must not leave the origin working for nobody). Call on this handler's loop.
    private func clientLeft(_ context: SharedRequestContext, key: CacheKey) {
        let departure = cache.inFlight.leave(key, where: { $0.context === context })
        if case .notWaiting = departure { return }
        // Its answer will not come: the request ends here, as nginx's 499 does.
        context.abandon()
        guard case .cancelFetch(let leader) = departure else { return }
        let handler = leader.handler, started = leader.context
        if handler.loop.inEventLoop {
            handler.cancelFetch(of: key, startedBy: started)
        } else {
            handler.loop.execute { handler.cancelFetch(of: key, startedBy: started) }
        }
    }

    /// Stops this loop's fetch of `key`: no tier step or origin answer advances it any more, and
    /// its origin exchange is aborted. Call on this handler's loop.
    fileprivate func cancelFetch(of key: CacheKey, startedBy leader: SharedRequestContext) {
        guard let led = leading[key], led.leader === leader else { return }
        leading[key] = nil
        let run = led.run
        run.isCancelled = true
        for effect in run.flow.cancel() { perform(effect, of: run) }
        if run.sent != nil { pool.cancel(run) }
    }

    /// Fetches for `waiter`'s client alone, with its own request: its key's answers may not be
    /// shared (hit-for-miss). Call on this handler's loop.
    fileprivate func fetchAlone(_ waiter: FetchWaiter) {
        guard let key = waiter.plan.key else { preconditionFailure("a lone fetch without a key") }
        run(waiter.plan.alone, answering: .alone(waiter.context, key: key, in: cache.inFlight))
    }

    /// Drives one `FetchFlow` to its outcome, then answers whom `answering` names.
    private func run(_ plan: consuming FetchPlan, answering: consuming FetchRun.Answering) {
        let run = FetchRun(plan: plan, environment: environment, answering: answering)
        advance(run, run.start())
    }

    private func advance(_ run: FetchRun, _ step: FetchFlow.Step) {
        // A tier's answer after the cancel: a lease it won goes straight back.
        guard !run.isCancelled else {
            for effect in run.flow.cancel() { perform(effect, of: run) }
            return
        }
        for effect in run.flow.takeEffects() { perform(effect, of: run) }
        switch step {
        case .lookupTier(let key):
            guard let responses = tiers.responses else { return advance(run, run.flow.tierLookedUp(nil, purges: nil)) }
            let began = stepBegan(run)
            responses.lookup(key) { [self] entry, purges in
                recordStep(of: run) { $0.l2Lookup(start: began, end: $1.now, hit: entry != nil, ids: $1.ids) }
                advance(run, run.flow.tierLookedUp(entry, purges: purges))
            }
        case .acquireLease(let key, let ttl):
            guard let responses = tiers.responses else { return advance(run, run.flow.leaseAnswered(true)) }
            let began = stepBegan(run)
            responses.acquireLease(key, ttl: ttl) { [self] acquired in
                recordStep(of: run) { $0.lease(start: began, end: $1.now, acquired: acquired, ids: $1.ids) }
                advance(run, run.flow.leaseAnswered(acquired))
            }
        case .awaitTierEntry(let key, let timeout):
            guard let responses = tiers.responses else { return advance(run, run.flow.awaitedEntry(nil)) }
            let began = stepBegan(run)
            responses.awaitEntry(key, timeout: timeout) { [self] entry in
                recordStep(of: run) { $0.fleetWait(start: began, end: $1.now, arrived: entry != nil, ids: $1.ids) }
                advance(run, run.flow.awaitedEntry(entry))
            }
        case .send:
            send(for: run)
        case .finish(let outcome):
            if case .waiters(let key, _) = run.answering, leading[key]?.run === run { leading[key] = nil }
            // A stored answer may be sampled for freshness later (docs/FRESHNESS.md); the miss
            // path pays a settings read and, for the sampled share of keys, one schedule insert.
            if case .stored(let entry, _) = outcome, run.flow.sampledETag == nil {
                cache.freshness.offer(entry, plan: run.flow.plan)
            }
            run.answer(outcome) { [environment] in environment.clock.now }
            run.onFinish?(outcome)
        }
    }

    // MARK: - Freshness samples

    /// Fetches `candidate`'s answer again through the normal origin path (coalesced with the
    /// key's misses, under the origin deadline), compares its entity tag with the stored one,
    /// records the sample and logs the fetch (`method=SAMPLE`, with `changed` and `age`). Call on
    /// this handler's loop.
    func sample(_ candidate: FreshnessCandidate<FetchPlan>) {
        let sampling = cache.freshness
        // One fetch at a time per key: a miss or refresh under way takes precedence.
        guard cache.inFlight.beginRefresh(candidate.key) == .startRefresh else {
            sampling.finished(candidate, answeredWith: nil, at: environment.clock.now)
            return
        }
        var plan = candidate.payload
        var headers = plan.upstreamHeaders.headers
        headers.remove("X-Request-Id")
        // A sample belongs to no client's trace: the one its entry was fetched in is over.
        headers.remove("traceparent")
        headers.remove("tracestate")
        headers.replace(FreshnessSampling.header.name, with: FreshnessSampling.header.value)
        plan.upstreamHeaders = UpstreamHeaderBlock(headers)
        plan.trace = nil
        let run = FetchRun(
            plan: plan, environment: environment, sampledETag: candidate.etag,
            answering: .waiters(of: candidate.key, in: cache.inFlight))
        let started = ContinuousClock.now
        run.onFinish = { [self, run] outcome in
            let etag: String? = if case .stored(let entry, _) = outcome { entry.etag } else { nil }
            let answeredAt = environment.clock.now
            let found = sampling.finished(candidate, answeredWith: etag, at: answeredAt)
            guard accessLog.isOn else { return }
            // Without an answer to compare, the age the stored answer had all the same.
            let sample = AccessLogRecord.Sample(
                changed: found?.changed, age: found?.age ?? max(.zero, answeredAt - candidate.storedAt))
            let status = outcome.originStatus
            let bytes: Int = if case .stored(let entry, _) = outcome { entry.body.count } else { 0 }
            accessLog.append { buffer, format in
                AccessLogRecord.append(
                    to: &buffer, format: format, time: .now, client: nil, method: .other("SAMPLE"), status: status,
                    cache: nil, operation: candidate.operationName, hash: plan.operation.document.digest,
                    errorCode: nil, bypassReason: nil, duration: ContinuousClock.now - started,
                    originStatus: status, originDuration: run.upstream, bytes: bytes, requestID: nil, userAgent: nil,
                    clientName: nil, clientVersion: nil, sample: sample)
            }
        }
        advance(run, run.start())
    }

    // MARK: - Fetch spans (docs/TRACING.md)

    /// When a step of `run` began, for its span: 0 when the run's spans are not recorded.
    private func stepBegan(_ run: FetchRun) -> UInt64 {
        run.trace != nil ? settings.tracer?.now ?? 0 : 0
    }

    /// Records the span `make` builds from `run`'s trace, when its spans are recorded.
    private func recordStep(of run: FetchRun, _ make: (FetchTrace, Tracer) -> Span) {
        guard let trace = run.trace, let tracer = settings.tracer else { return }
        tracer.record(make(trace, tracer))
    }

    /// The origin fetch span of `run`, which the origin's `traceparent` names: from sending to
    /// `result`.
    private func recordOriginFetch(of run: FetchRun, _ result: UpstreamResult) {
        recordStep(of: run) { trace, tracer in
            let origin = settings.configuration.origin.url
            let (status, failure): (Int?, String?) =
                switch result {
                case .response(let response): (response.status, nil)
                case .failure(let failure): (nil, failure.detail ?? "no answer within origin.timeout")
                }
            return trace.originFetch(
                start: run.originBegan, end: tracer.now, method: run.flow.plan.operation.origin.method, host: origin.host,
                port: origin.port, status: status, failure: failure, reused: run.reusedConnection, attempt: run.attempt)
        }
    }

    private func perform(_ effect: FetchFlow.Effect, of run: FetchRun) {
        switch effect {
        case .storeInTier(_, let purges):
            if let entry = run.flow.storedEntry { tiers.responses?.store(entry, unlessPurgedSince: purges) }
        case .releaseLease(let key):
            tiers.responses?.releaseLease(key)
        case .purgeEntities(let tags):
            let purged = cache.purger.purgeEntities(tags)
            ProxyLog.mutationPurged(tags, purged: purged, operation: run.flow.plan.operation.operationName)
        }
    }

    /// Sends the request of `run`'s plan to the origin through this loop's pool; `run` hears the answer
    /// (`originAnswered(_:for:)`). The run itself is the pool's receiver: no closure per exchange.
    private func send(for run: FetchRun) {
        let origin = run.flow.plan.operation.origin
        let upstream = UpstreamRequest(
            method: origin.method, target: origin.target, headers: HTTPHeaders(),
            written: run.flow.plan.upstreamHeaders.bytes, body: origin.body)
        run.sent = ContinuousClock.now
        run.originBegan = stepBegan(run)
        run.handler = self
        pool.send(upstream, to: run)
    }

    /// The origin answered `run`'s request (or failed): counts and logs the exchange, then
    /// advances the run.
    fileprivate func originAnswered(_ result: UpstreamResult, for run: FetchRun) {
        guard !run.isCancelled else { return }
        let now = ContinuousClock.now
        let duration = now - (run.sent ?? now)
        if run.trace != nil { recordOriginFetch(of: run, result) }
        let operationName = run.flow.plan.operation.operationName
        // Once per fetch, whoever waits on it (background refreshes included). The request id
        // is looked up only for the answers that log names (a failure, a 5xx).
        let isLogged =
            switch result {
            case .failure: true
            case .response(let response): response.status >= 500
            }
        ProxyLog.originResult(
            result, operation: operationName,
            requestID: isLogged ? run.flow.plan.upstreamHeaders["X-Request-Id"] : nil)
        let outcome = OriginOutcome(result)
        run.upstream = duration
        let next = run.flow.originAnswered(result)
        // Counted under how the fetch ended for the cache (stored, not stored, stale in its place).
        let cache: RequestStatistics.CacheResult? =
            if case .finish(let ending) = next { RequestStatistics.CacheResult(ending.cache) } else { nil }
        statistics.record {
            $0.recordUpstream(
                duration: duration, outcome: Self.upstreamOutcome(outcome), reason: outcome.errorReason,
                operationName: RecordedName.operation(resolved: operationName), cache: cache)
        }
        advance(run, next)
    }

    private static func upstreamOutcome(_ outcome: OriginOutcome) -> RequestStatistics.UpstreamOutcome {
        switch outcome {
        case .answered: .answered
        case .failed(.timeout): .timedOut
        case .serverError, .failed: .failed
        }
    }
}

/// A client waiting on its key's fetch: whom to answer, and, should the answer not be its to
/// have, the fetch it makes itself on its own loop. One reference (the context carries the
/// rest): the in-flight table moves and copies waiters, and a copy retained each field.
struct FetchWaiter: Sendable {
    let context: SharedRequestContext

    init(_ context: SharedRequestContext) {
        precondition(context.refetch != nil, "a waiter without its own plan")
        self.context = context
    }

    /// The waiter's own plan: its own request's upstream headers.
    var plan: FetchPlan { context.refetch!.plan }
    /// The handler of the waiter's loop.
    var handler: ProxyHandler { context.refetch!.handler }
}

/// One fetch under way: its flow, and whom to tell when it ends. It hears the origin's answer
/// itself (the pool's receiver) and hands it to the handler that sent it.
private final class FetchRun: OriginReceiving {
    /// Whom a fetch's outcome answers: named, not a closure (one allocation less per miss).
    enum Answering {
        /// The one client of an uncached fetch.
        case client(SharedRequestContext)
        /// The one client of a fetch made alone because `key`'s answers may not be shared.
        case alone(SharedRequestContext, key: CacheKey, in: InFlightTable<CacheKey, FetchWaiter>)
        /// Every waiter that joined the fetch of `key`, each on its own loop.
        case waiters(of: CacheKey, in: InFlightTable<CacheKey, FetchWaiter>)
    }

    var flow: FetchFlow
    let answering: Answering
    /// How long the origin took, once it answered.
    var upstream: Duration?
    /// When the request went to the origin, and the handler that sent it (set by `send`).
    var sent: ContinuousClock.Instant?
    var handler: ProxyHandler?
    /// Nobody waits for it any more: it stops where it stands (`ProxyHandler.cancelFetch`).
    var isCancelled = false
    /// Called after the waiters are answered (a freshness sample records itself).
    var onFinish: ((FetchOutcome) -> Void)?
    /// The fetch's trace when its spans are recorded (docs/TRACING.md), and what its origin span
    /// says: when it was sent, on what connection, which attempt.
    let trace: FetchTrace?
    var originBegan: UInt64 = 0
    var reusedConnection: Bool?
    var attempt = 1

    /// The flow is made in place: one made outside and passed in was copied into the run (a
    /// retain of each of its fields) and destroyed once more.
    init(
        plan: consuming FetchPlan, environment: FlowEnvironment, sampledETag: String? = nil,
        answering: consuming Answering
    ) {
        // Read from the plan before the flow takes it: read back from the flow, the whole plan
        // was copied for it.
        let trace = plan.trace
        self.trace = trace?.isRecorded == true ? trace : nil
        flow = FetchFlow(plan: plan, environment: environment, sampledETag: sampledETag)
        self.answering = answering
    }

    /// The flow's first step, read where the flow is kept (a flow started before the run takes
    /// it is copied into the run and destroyed once more).
    func start() -> FetchFlow.Step { flow.start() }

    func originAnswered(_ result: UpstreamResult) {
        guard let handler else { preconditionFailure("an origin answer for a fetch that was not sent") }
        handler.originAnswered(result, for: self)
    }

    func exchangeStarted(reusedConnection reused: Bool, attempt: Int) {
        guard trace != nil else { return }
        reusedConnection = reused
        self.attempt = attempt
    }

    /// Answers with `outcome`, each client dressed as it asked; waiters who may not have it
    /// fetch for themselves, each on its own loop (`AnswerSharing`). The fetch belongs to no
    /// client: a waiter that disconnected, the first included, cancels nothing while others wait.
    /// `now` is read only for the in-flight table: a fetch for one uncached client needs no clock.
    func answer(_ outcome: FetchOutcome, now: () -> ContinuousClock.Instant) {
        switch answering {
        case .client(let context):
            context.finish(outcome, upstream: upstream)
        case .alone(let context, let key, let inFlight):
            inFlight.answeredAlone(key, sharing: AnswerSharing(outcome), now: now())
            context.finish(outcome, upstream: upstream)
        case .waiters(let key, let inFlight):
            let completion = inFlight.complete(key, sharing: AnswerSharing(outcome), now: now())
            // Each waiter read in place: a copy of the whole waiter retained and released each
            // field of its plan.
            let upstream = upstream
            completion.forEachAnswered { $0.context.finish(outcome, upstream: upstream) }
            completion.forEachRefetching { waiter in
                waiter.handler.loop.execute { waiter.handler.fetchAlone(waiter) }
            }
        }
    }
}
