// What a configuration file decides for the proxy's request path; replaced as a whole when
// SIGHUP reloads the file, so that every request sees one consistent set.

import BreakwaterCore

/// The reloadable part of the proxy: endpoint rules, cache policy, header forwarding.
struct ProxySettings: Sendable {
    let endpoint: GraphQLEndpoint
    let policy: CachePolicy
    let upstreamHeaders: UpstreamHeaders
    /// The configuration these came from (origin settings make the loops' pools).
    let configuration: Configuration
    /// The origin's schema and rewritten documents, shared by every loop and kept across reloads.
    let rewrites: DocumentRewrites
    /// Operations whose answers held a per-user type, shared by every loop; new with each reload
    /// (`cache.types` may have changed).
    let perUserOperations = PerUserOperations()
    /// Starts request traces and records spans (docs/TRACING.md); nil without
    /// `tracing.otlp_endpoint`: then no request does any tracing work beyond passing a client's
    /// `traceparent` on to the origin as a child's.
    let tracer: Tracer?
    /// The span exporter the tracer hands spans to, kept across reloads.
    private let exporter: TraceExporter?

    init(
        configuration: Configuration, resolver: DocumentResolver, documents: DocumentCache,
        rewrites: DocumentRewrites, exporter: TraceExporter? = nil, ids: any TraceIDSource = RandomTraceIDs.shared
    ) {
        endpoint = GraphQLEndpoint(configuration: configuration, resolver: resolver, documents: documents)
        policy = CachePolicy(configuration.cache, forwardHeaders: configuration.origin.forwardHeaders)
        upstreamHeaders = UpstreamHeaders(forwardHeaders: configuration.origin.forwardHeaders, ids: ids)
        self.configuration = configuration
        self.rewrites = rewrites
        self.exporter = exporter
        tracer = exporter.map { Tracer(configuration, exporter: $0, ids: ids) }
    }

    /// The same settings read from a new configuration, keeping the fleet registry, the caches
    /// and the span exporter.
    func reloaded(with configuration: Configuration) -> ProxySettings {
        ProxySettings(
            configuration: configuration, resolver: endpoint.resolver, documents: endpoint.documents, rewrites: rewrites,
            exporter: exporter, ids: upstreamHeaders.ids)
    }

    /// What the request flow decides with, over `cache`, with the fleet tiers a loop has.
    func flowEnvironment(cache: ProcessCache, tiers: LoopTiers) -> FlowEnvironment {
        FlowEnvironment(
            endpoint: endpoint, policy: policy, store: cache.store, upstreamHeaders: upstreamHeaders,
            hasher: cache.hasher, clock: cache.clock, sharesDocuments: tiers.documents != nil,
            sharesResponses: tiers.responses != nil, originTimeout: configuration.origin.timeout,
            rewrites: configuration.cache.entityTags == .auto ? rewrites : nil, perUserOperations: perUserOperations,
            compressor: configuration.server.compression ? Gzip() : nil,
            expectsSchema: configuration.origin.schema != .off)
    }

    func makePool(loop: EventLoop) throws(ServerError) -> OriginPool {
        let origin = configuration.origin
        return try OriginPool(
            loop: loop, origin: origin.url, timeout: origin.timeout, maxConnections: origin.maxConnections,
            tlsVerify: origin.tlsVerify)
    }
}

/// The fleet tiers (docs/FLEET.md) one event loop talks to; none without `redis.url`.
struct LoopTiers {
    var responses: (any ResponseTier)?
    var documents: (any DocumentTier)?

    init(responses: (any ResponseTier)? = nil, documents: (any DocumentTier)? = nil) {
        self.responses = responses
        self.documents = documents
    }
}
