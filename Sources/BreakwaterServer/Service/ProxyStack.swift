// The proxy's parts assembled from one configuration: registry, shared cache, a handler per
// event loop, the GraphQL listener and the admin listener. The process around it (signals,
// drain, reload) lives in the BreakwaterService target; this is the one door it uses.

import BreakwaterCore
import Dispatch
import Logging
import Synchronization

/// The GraphQL proxy and its admin endpoints, serving on a group's loops.
package final class ProxyStack: @unchecked Sendable {
    /// The client-facing listener.
    package let proxyServer: HTTPServer
    /// The operators' listener.
    package let adminServer: HTTPServer
    private let handlers: [ProxyHandler]
    private let batches: [BatchHandler]
    private let admin: AdminHandler
    /// The reloads `/stats` and `/metrics` report.
    private let reloads: ConfigReloadCounter
    private let registry: PersistedQueryRegistry
    private let cache: ProcessCache
    /// The Redis fleet tier (docs/FLEET.md), when `redis.url` is set.
    private let fleet: RedisFleet?
    /// Purges the caches in front (docs/CDN.md), when `cdn.targets` is set.
    private let cdn: CDNPurger?
    /// Exports spans (docs/TRACING.md), when `tracing.otlp_endpoint` is set.
    private let traces: TraceExporter?
    /// Keeps the origin's schema current (`origin.schema`), on the first loop.
    private var schemaKeeper: SchemaKeeper?
    private let logger: Logger
    /// The per-loop access-log buffers; the process's log writer attaches to them.
    package let accessLog: ProxyAccessLog
    /// `cache.snapshot`, resolved; a reload changes it for the next write.
    private let snapshotPath: Mutex<String>
    /// One snapshot write at a time (a takeover's and the stop's may meet).
    private let snapshotWrites = Mutex(())
    /// The tag header loaded entries carry (`cache.tag_header`, as at start).
    private let tagHeader: TagHeader?

    /// Binds `server.listen` and `admin.listen` on every loop of `group`, or serves the
    /// listening sockets `inherited` gives for either (socket activation, a takeover).
    package init(
        group: EventLoopGroup, configuration: Configuration, readiness: Readiness, logger: Logger,
        inherited: InheritedListeners = InheritedListeners()
    ) throws(ServerError) {
        self.logger = logger
        snapshotPath = Mutex(configuration.cache.snapshot)
        tagHeader = TagHeader(configured: configuration.cache.tagHeader)
        let registry = try Self.makeRegistry(configuration, logger: logger)
        self.registry = registry
        let resolver = DocumentResolver(
            mode: configuration.persistedQueries.mode, registry: registry, hasher: OpenSSLSHA256())
        let documents = DocumentCache(capacity: max(1024, min(configuration.persistedQueries.maxEntries, 100_000)))
        let fileSchema = try SchemaKeeper.loadFile(configuration)
        // Rewrites are remembered for as many documents as the registry holds, within its byte bound.
        let registryBound = configuration.persistedQueries
        let rewrites = DocumentRewrites(
            capacity: min(documents.capacity, max(64, registryBound.maxEntries)), maxBytes: registryBound.maxBytes.bytes)
        // A file's schema is in use before the first request; an introspected one comes when the origin answers.
        rewrites.install(fileSchema, keys: SchemaKeeper.keys(configuration))
        let traces = try configuration.tracing.otlpEndpoint.map { endpoint throws(ServerError) in
            try TraceExporter(endpoint: endpoint, logger: logger)
        }
        self.traces = traces
        let settings = ProxySettings(
            configuration: configuration, resolver: resolver, documents: documents, rewrites: rewrites,
            exporter: traces)
        let cache = ProcessCache(
            maxBytes: configuration.cache.maxBytes.bytes, freshness: configuration.cache.freshness, policy: settings.policy)
        if !configuration.cache.snapshot.isEmpty { cache.snapshotFigures.withLock { $0 = SnapshotFigures() } }
        let statistics = group.loops.map { _ in LoopStatistics() }
        let accessLog = ProxyAccessLog(loopCount: group.loops.count, logging: configuration.logging)
        self.accessLog = accessLog
        let fleet = try RedisFleet.make(configuration, loops: group.loops, logger: logger)
        self.fleet = fleet
        let cdn = try CDNPurger.make(configuration.cdn, logger: logger, tracer: settings.tracer)
        self.cdn = cdn
        if let cdn { cache.purger.forwardLocalPurges(to: cdn) }
        var handlers: [ProxyHandler] = []
        var batches: [BatchHandler] = []
        proxyServer = try HTTPServer.make(
            group: group, address: configuration.server.listen, inherited: inherited.graphql,
            limits: try Self.limits(configuration), logger: logger
        ) { loop throws(ServerError) in
            let handler = try ProxyHandler(
                loop: loop, settings: settings, cache: cache, statistics: statistics[loop.index],
                accessLog: accessLog.buffers[loop.index], tiers: fleet?.tiers(for: loop) ?? LoopTiers())
            handlers.append(handler)
            let batch = BatchHandler(handler, settings: BatchHandler.Settings(configuration))
            batches.append(batch)
            return IdentifiedHandler(batch)
        }
        self.handlers = handlers
        self.batches = batches
        self.cache = cache
        if let first = handlers.first {
            let sampling = cache.freshness
            sampling.onStartTicking { first.loop.execute { Self.sampleFreshness(sampling, on: first) } }
        }
        let state = AdminState(
            cache: cache, registry: registry, statistics: statistics, started: .now, readiness: readiness,
            redis: fleet, cdn: cdn, traces: traces)
        reloads = state.reloads
        let admin = AdminHandler(state: state, access: AdminSettings(configuration), logger: logger)
        self.admin = admin
        adminServer = try HTTPServer.make(
            group: group, address: configuration.admin.listen, inherited: inherited.admin, limits: HTTPLimits(),
            logger: logger
        ) { _ in admin }
        if let fleet {
            cache.purger.connect(fleet.purgeBus)
            fleet.knowledge.share(settings.perUserOperations)
            fleet.setRegistrySource(
                digests: { [registry] in registry.registeredDigests },
                document: { [registry] digest in registry.document(for: digest) })
            fleet.start()
            let (sampling, pool) = (cache.freshness, fleet.freshnessPool)
            sampling.onSample { pool.publish($0) }
            pool.start { ledger in sampling.adoptPool(ledger, readAt: .now) }
        }
        let keeper = SchemaKeeper(loop: group.loops[0], rewrites: rewrites, logger: logger) {
            [handlers, cache, logger] schemaKnown in
            Self.schemaChanged(schemaKnown: schemaKnown, handlers: handlers[...], cache: cache, logger: logger)
        }
        keeper.shared = fleet?.knowledge
        let schemaSettled = self.schemaSettled
        keeper.firstOutcome = { schemaSettled.signal() }
        schemaKeeper = keeper
        keeper.loop.execute { keeper.apply(configuration, fileSchema: fileSchema) }
    }

    /// Signalled once the schema source's first outcome is in (`SchemaKeeper.firstOutcome`).
    private let schemaSettled = DispatchSemaphore(value: 0)

    /// Waits, once the loops run, until the origin's schema is known or its first introspection
    /// failed, at most `bound`: answers given before it would be stored unchecked (and dropped
    /// when the schema arrives), so the ready lines wait for it. Whether it came in time.
    package func waitForSchema(upTo bound: Duration) -> Bool {
        schemaSettled.wait(timeout: .now() + .milliseconds(Int(bound / .milliseconds(1)))) == .success
    }

    /// The longest the ready lines wait for the origin's schema: an origin that does not answer
    /// its introspection delays them by this much, never by the whole `origin.timeout`.
    package static let schemaWaitBound = Duration.seconds(5)

    /// `waitForSchema` for the ready lines, bounded by `origin.timeout` and `schemaWaitBound`;
    /// logs when the schema did not come in time (serving goes on without it).
    package func awaitSchemaBeforeReady(_ origin: Configuration.Origin, logger: Logger) {
        let bound = min(origin.timeout, Self.schemaWaitBound)
        guard !waitForSchema(upTo: bound) else { return }
        logger.notice("origin schema: not known yet, serving without it until it comes", metadata: ["waited": "\(bound)"])
    }

    /// A different schema (or none) is in use: each loop in turn forgets the operations it
    /// resolved under the old one, then, with a schema, the answers stored unchecked are dropped
    /// (`CachePurger.schemaChanged`) and the count logged. Dropped after every loop forgot, so
    /// that no request arriving after the drop goes upstream unchecked from a remembered
    /// resolution; a fetch already under way when the schema arrived may still store its
    /// unchecked answer (marked, reached by every entity purge, out of the fleet tier).
    private static func schemaChanged(
        schemaKnown: Bool, handlers: ArraySlice<ProxyHandler>, cache: ProcessCache, logger: Logger
    ) {
        guard let handler = handlers.first else {
            guard let dropped = cache.purger.schemaChanged(schemaKnown: schemaKnown) else { return }
            logger.info(
                "origin schema in use: answers stored unchecked before it were dropped",
                metadata: ["cache.unchecked_dropped": .stringConvertible(dropped)])
            return
        }
        handler.loop.execute {
            handler.schemaChanged()
            schemaChanged(schemaKnown: schemaKnown, handlers: handlers.dropFirst(), cache: cache, logger: logger)
        }
    }

    /// Waits until every registration is in the registry's store (written behind the loops'
    /// backs); call once the loops have stopped.
    package func flush() {
        registry.flush()
        // Purges still in a batch window go to the caches in front now (within cdn.timeout).
        cdn?.finish()
        // Then the spans still waiting, the purges' included, go to the collector.
        traces?.finish()
    }

    /// Loads the cache snapshot (`cache.snapshot`, docs/OPERATING.md "The cache across restarts")
    /// into the empty store and logs what came back. Call once, before the loops start: `/readyz`
    /// cannot answer 200, and no request is served, before it returns. A missing, foreign or
    /// damaged file is logged and the cache starts with what could be read. With a fleet
    /// (`redis.url`) the snapshot must hold a purge-log position, and the purges made since are
    /// read from the log here and applied to the loaded entries before any is served; when Redis
    /// cannot be read in time, the log no longer reaches back or the generation moved, nothing is
    /// loaded (docs/FLEET.md, "No purge lost").
    @discardableResult
    package func loadSnapshot() -> SnapshotLoadOutcome {
        let path = snapshotPath.withLock { $0 }
        guard !path.isEmpty else { return .off }
        let started = ContinuousClock.now
        let outcome: SnapshotLoadOutcome
        do throws(CacheSnapshotError) {
            var catchUp: CacheSnapshotCatchUp.Outcome?
            var load = try CacheSnapshot.load(
                from: path, into: cache.store, now: cache.clock.now, wallNow: cache.clock.wallNow, tagHeader: tagHeader
            ) { [fleet] header in
                guard let fleet else { return nil }
                if let refusal = CacheSnapshot.fleetRefusal(header, purgeLogKept: fleet.settings.purgeLogLength > 0) {
                    return refusal
                }
                guard let start = CacheSnapshotCatchUp(header: header) else { return nil }
                let decided = fleet.catchUp(start)
                catchUp = decided
                guard case .drop(let reason) = decided else { return nil }
                return "\(reason)"
            }
            if let fleet, case .replay(let purges, let through)? = catchUp, let header = load?.header {
                for purge in purges { cache.purger.applyRemote(purge) }
                load?.replayed = purges.count
                _ = fleet.purgeBus.resume(from: through, generation: header.generation)
            }
            outcome = load.map { .loaded($0, path: path, took: .now - started) } ?? .noFile(path: path)
        } catch {
            outcome = .failed(error, took: .now - started)
        }
        if case .loaded(let load, _, let took) = outcome {
            // Stored under the configuration of the process that wrote them: cut to this one's.
            if let policy = handlers.first?.settings.policy {
                Self.lowerStoredTTLs(cache.store, to: policy, logger: logger, when: "cache snapshot")
            }
            cache.snapshotFigures.withLock { figures in
                figures?.loaded = load.loaded
                figures?.skipped = load.skipped
                figures?.bytes = load.bytes
                figures?.took = took
                figures?.writtenAt = load.header.writtenAt
            }
        }
        outcome.log(logger)
        return outcome
    }

    /// Writes the shared entries to the cache snapshot (`cache.snapshot`): at stop after the
    /// drain, and on a takeover by the process that hands over. Synchronous, and safe while the
    /// loops still serve (each store shard is read under its own lock, the file written under
    /// none). Does not log: the caller logs the outcome (`SnapshotWriteOutcome.log`); a failure
    /// (disk full, read-only folder, a foreign file at the path) replaces nothing.
    package func writeSnapshot() -> SnapshotWriteOutcome {
        snapshotWrites.withLock { _ in
            let path = snapshotPath.withLock { $0 }
            guard !path.isEmpty else { return .off }
            let started = ContinuousClock.now
            let fleetPosition = fleet?.purgeLogPosition
            let header = CacheSnapshotHeader(
                writtenAt: cache.clock.wallNow, purgeLogPosition: fleetPosition?.position,
                generation: fleetPosition?.generation ?? 0)
            do throws(CacheSnapshotError) {
                let written = try CacheSnapshot.write(
                    cache.store, to: path, header: header, now: cache.clock.now, wallNow: cache.clock.wallNow)
                cache.snapshotFigures.withLock { $0?.writtenEntries = written.entries }
                return .written(written, path: path, took: .now - started)
            } catch {
                cache.snapshotFigures.withLock { $0?.writeFailures += 1 }
                return .failed(error, took: .now - started)
            }
        }
    }

    /// Counts a configuration reload (`SIGHUP`) and its result for `/stats` and `/metrics`.
    package func recordReload(succeeded: Bool) {
        reloads.record(succeeded: succeeded)
    }

    /// Applies the reloadable settings of `configuration` to new requests on every loop, without
    /// dropping connections. Throws (and changes nothing) when its listener limits are invalid.
    package func apply(_ configuration: Configuration) throws(ServerError) {
        guard let first = handlers.first else { return }
        let limits = try Self.limits(configuration)
        let fileSchema = try SchemaKeeper.loadFile(configuration)
        let settings = first.settings.reloaded(with: configuration)
        fleet?.knowledge.share(settings.perUserOperations)
        let applied = DispatchGroup()
        for handler in handlers {
            applied.enter()
            handler.loop.execute { [logger] in
                defer { applied.leave() }
                do {
                    try handler.apply(settings)
                } catch {
                    logger.error("reload: loop \(handler.loop.index) keeps its origin: \(error)")
                }
            }
        }
        // Once every loop stores under the new settings, no entry stored under the old ones can
        // come after the pass: it cuts them all (off the loops: it copies the entries it cuts).
        applied.notify(queue: .global(qos: .utility)) { [cache, logger] in
            Self.lowerStoredTTLs(cache.store, to: settings.policy, logger: logger, when: "reload")
        }
        if let keeper = schemaKeeper {
            keeper.loop.execute { keeper.apply(configuration, fileSchema: fileSchema) }
        }
        cache.freshness.apply(configuration.cache.freshness, policy: settings.policy)
        // The next write goes to the new path; the figures follow whether a snapshot is kept.
        snapshotPath.withLock { $0 = configuration.cache.snapshot }
        cache.snapshotFigures.withLock { figures in
            if configuration.cache.snapshot.isEmpty {
                figures = nil
            } else if figures == nil {
                figures = SnapshotFigures()
            }
        }
        proxyServer.updateLimits(limits)
        accessLog.apply(configuration.logging)
        for batch in batches { batch.update(BatchHandler.Settings(configuration)) }
        admin.update(AdminSettings(configuration))
    }

    /// Cuts the TTL of each stored entry that `policy` gives a shorter one than it was stored
    /// with (`CachePolicy.loweredTTL(of:)`), as if it had been stored under `policy`, and logs
    /// how many (docs/OPERATING.md, "Signals").
    private static func lowerStoredTTLs(_ store: ResponseStore, to policy: CachePolicy, logger: Logger, when: String) {
        let lowered = store.lowerTTLs { policy.loweredTTL(of: $0) }
        guard lowered > 0 else { return }
        logger.notice(
            "\(when): stored entries cut to the lower TTLs of the configuration",
            metadata: ["cache.lowered": .stringConvertible(lowered)])
    }

    /// Takes the due freshness samples on `handler`'s loop every `FreshnessSampling.period` and
    /// fetches them there, while samples are scheduled (an offer into an empty schedule starts it).
    private static func sampleFreshness(_ sampling: FreshnessSampling, on handler: ProxyHandler) {
        handler.loop.schedule(after: FreshnessSampling.period) {
            let (due, again) = sampling.tick(now: .now)
            for candidate in due { handler.sample(candidate) }
            if again { sampleFreshness(sampling, on: handler) }
        }
    }

    /// The listener limits of `configuration`: the HTTP engine answers 414, 431 and 413 (with
    /// GraphQL bodies) at exactly the configured sizes, and enforces the header, body and idle
    /// deadlines and max_connections.
    private static func limits(_ configuration: Configuration) throws(ServerError) -> HTTPLimits {
        let server = configuration.server
        return HTTPLimits(
            maxURIBytes: server.maxURIBytes, maxHeaderBytes: server.maxHeaderBytes.bytes,
            maxBodyBytes: server.maxBodyBytes.bytes, idleTimeout: server.idleTimeout,
            headerTimeout: server.headerTimeout, bodyTimeout: server.bodyTimeout,
            maxConnections: server.maxConnections,
            tls: try server.tls.map { tls throws(ServerError) in
                try TLSServerContext(certificateFile: tls.cert, keyFile: tls.key, offersHTTP2: server.http2)
            },
            http2MaxStreams: server.http2 ? server.http2MaxStreams : nil)
    }

    /// The persisted-query registry with its store and manifest loaded.
    private static func makeRegistry(_ configuration: Configuration, logger: Logger) throws(ServerError)
        -> PersistedQueryRegistry
    {
        let settings = configuration.persistedQueries
        let hasher = OpenSSLSHA256()
        do {
            let manifest = try settings.manifest.isEmpty
                ? nil : PersistedQueryManifest(path: settings.manifest, hasher: hasher)
            let store = try settings.store.isEmpty || settings.mode != .automatic
                ? nil : PersistedQueryStore(path: settings.store)
            let registry = try PersistedQueryRegistry(
                maxEntries: settings.maxEntries, maxBytes: settings.maxBytes.bytes, store: store, manifest: manifest, hasher: hasher,
                mode: settings.mode, logger: logger)
            logger.info(
                "persisted queries loaded",
                metadata: ["mode": "\(settings.mode.rawValue)", "entries": .stringConvertible(registry.entries)])
            return registry
        } catch {
            throw .setup("\(error)")
        }
    }
}
