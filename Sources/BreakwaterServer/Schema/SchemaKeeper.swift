// Keeps the proxy's knowledge of the origin's schema current (`origin.schema`, README "Configuration"):
// an SDL file read at start and on reload, or the origin introspected at start and every 5 minutes
// through an origin pool of its own. A failed introspection is logged with its reason and the last
// good schema stays; with a fleet, a proxy that has none takes the fleet's last good one from
// Redis (docs/FLEET.md); until one arrives, documents go upstream as the clients sent them.

import BreakwaterCore
import Logging

/// Installs the origin's schema into the shared `DocumentRewrites`. Lives on one event loop.
final class SchemaKeeper: @unchecked Sendable {
    /// How often `auto` asks the origin again.
    static let refreshInterval = Duration.seconds(300)

    let rewrites: DocumentRewrites
    let loop: EventLoop
    private let logger: Logger
    /// Called (on this loop) whenever a different schema, or none, is installed, with whether one
    /// is known now: resolved operations remembered with their upstream text must be forgotten,
    /// and with a schema the answers stored unchecked dropped (`CachePurger.schemaChanged`).
    private let changed: @Sendable (_ schemaKnown: Bool) -> Void
    // Touched only on `loop`.
    private var source = Configuration.SchemaSource.off
    private var origin: Configuration.Origin?
    private var keys: [String: [String]] = [:]
    /// The per-user types of `cache.types`, named in the warning when no schema can show them.
    private var perUserTypes: [String] = []
    private var pool: OriginPool?
    /// Bumped when the source changes, so the timer and answers of an older source are ignored.
    private var epoch = 0
    /// When to ask again: the refresh interval while the origin answers, backing off from 1 s after failures.
    private var schedule = IntrospectionSchedule(refreshInterval: SchemaKeeper.refreshInterval)
    /// The fleet's schema in Redis: each good introspection is kept there, and read from there
    /// while this proxy has none of its own; nil without a fleet tier.
    var shared: (any FleetSchemaStore)?
    /// Called once, on this loop, when the first source applied has had its outcome: the file
    /// read, the first introspection answered or failed, or none configured.
    var firstOutcome: (@Sendable () -> Void)?

    init(
        loop: EventLoop, rewrites: DocumentRewrites, logger: Logger,
        changed: @escaping @Sendable (_ schemaKnown: Bool) -> Void
    ) {
        self.loop = loop
        self.rewrites = rewrites
        self.logger = logger
        self.changed = changed
    }

    /// The schema of an SDL file named by `origin.schema`, for start and reload: its errors read
    /// `file:line: message` like other configuration errors.
    static func loadFile(_ configuration: Configuration) throws(ServerError) -> KnownSchema? {
        guard case .file(let path) = configuration.origin.schema else { return nil }
        do {
            return try KnownSchema(sdlFile: path)
        } catch {
            throw .setup("origin.schema: \(error)")
        }
    }

    /// The key fields per type that `cache.types` configures.
    static func keys(_ configuration: Configuration) -> [String: [String]] {
        configuration.cache.types.compactMapValues { $0.keys == DocumentRewriter.defaultKeys ? nil : $0.keys }
    }

    /// Takes the schema source of `configuration`; `fileSchema` is what `loadFile` read from it.
    /// Call on `loop`.
    func apply(_ configuration: Configuration, fileSchema: KnownSchema?) {
        let keys = Self.keys(configuration)
        perUserTypes = configuration.cache.types.filter { $0.value.scope == .perUser }.keys.sorted()
        if !perUserTypes.isEmpty && (configuration.origin.schema == .off || configuration.cache.entityTags != .auto) {
            warnTypesUnseen(because: configuration.origin.schema == .off ? "origin.schema is off" : "cache.entity_tags is not auto")
        }
        let sourceChanged = configuration.origin.schema != source || configuration.origin != origin
        let keysChanged = keys != self.keys
        self.keys = keys
        source = configuration.origin.schema
        origin = configuration.origin
        switch configuration.origin.schema {
        case .off:
            epoch += 1
            pool = nil
            install(nil, reason: "origin.schema is off")
            settleFirstOutcome()
        case .file(let path):
            epoch += 1
            pool = nil
            install(fileSchema, reason: "read from \(path)", force: keysChanged)
            settleFirstOutcome()
        case .auto:
            if keysChanged { install(rewrites.schema, reason: "key fields changed", force: true) }
            // Every reload asks again at once: an operator who deployed a new origin schema reloads.
            epoch += 1
            schedule = IntrospectionSchedule(refreshInterval: Self.refreshInterval)
            if sourceChanged || pool == nil {
                do {
                    pool = try OriginPool(
                        loop: loop, origin: configuration.origin.url, timeout: configuration.origin.timeout,
                        maxConnections: 1, tlsVerify: configuration.origin.tlsVerify)
                } catch {
                    pool = nil
                    logger.warning("origin schema: cannot reach the origin to introspect it: \(error)")
                    settleFirstOutcome()
                    return
                }
            }
            introspect(epoch: epoch)
        }
    }

    /// Asks the origin for its schema, then again after the refresh interval, or sooner after a
    /// failure (`IntrospectionSchedule`), while `epoch` lasts.
    private func introspect(epoch: Int) {
        guard epoch == self.epoch, let pool else { return }
        var body: [UInt8] = Array(#"{"query":"#.utf8)
        JSONWriter.quotedString(KnownSchema.introspectionQuery, into: &body)
        body += Array(#","operationName":"BreakwaterIntrospection"}"#.utf8)
        let headers: HTTPHeaders = ["Content-Type": "application/json", "Accept": "application/json"]
        let path = origin?.url.path ?? "/graphql"
        pool.send(UpstreamRequest(method: "POST", target: path, headers: headers, body: body)) { [self] result in
            guard epoch == self.epoch else { return }
            let learned = learn(from: result)
            settleFirstOutcome()
            if learned, case .response(let response) = result { shared?.publishSchema(response.body) }
            if !learned && rewrites.schema == nil { adoptFleetSchema(epoch: epoch) }
            let next = learned ? schedule.succeeded() : schedule.failed()
            loop.schedule(after: next) { [self] in introspect(epoch: epoch) }
        }
    }

    private func settleFirstOutcome() {
        guard let firstOutcome else { return }
        self.firstOutcome = nil
        firstOutcome()
    }

    /// Installs the fleet's last good schema from Redis, while this proxy has none of its own.
    private func adoptFleetSchema(epoch: Int) {
        shared?.fetchSchema { [self] body in
            guard epoch == self.epoch, rewrites.schema == nil, let body else { return }
            do {
                install(try KnownSchema(introspection: body), reason: "the fleet's last good schema, from Redis")
            } catch {
                logger.warning("origin schema: the fleet's schema in Redis is unreadable: \(error)")
            }
        }
    }

    /// Installs the schema an introspection answer holds, or logs why there is none; whether it held one.
    private func learn(from result: UpstreamResult) -> Bool {
        switch result {
        case .failure(let failure):
            fail("the origin did not answer: \(failure)")
        case .response(let response) where response.status != 200:
            fail("the origin answered status \(response.status)")
        case .response(let response):
            do {
                install(try KnownSchema(introspection: response.body), reason: "introspected")
                return true
            } catch {
                fail("\(error)")
            }
        }
        return false
    }

    private func fail(_ reason: String) {
        let kept = rewrites.schema != nil ? "the last good schema stays" : "documents go upstream as sent"
        logger.warning(
            "origin schema: introspection failed, \(kept)",
            metadata: ["reason": "\(reason)", "origin": "\(origin?.url.hostHeader ?? "")"])
        if rewrites.schema == nil && !perUserTypes.isEmpty { warnTypesUnseen(because: "the origin's schema is unknown") }
    }

    /// Says loudly that the per-user type policy cannot see types, and what that costs: it fails
    /// closed, so answers it cannot check are not stored (`unverified-types`).
    private func warnTypesUnseen(because reason: String) {
        logger.warning(
            "cache.types: per-user types cannot be seen in answers, so answers to documents not checked against a schema are not stored (BYPASS unverified-types)",
            metadata: ["reason": "\(reason)", "types": "\(perUserTypes.joined(separator: ","))"])
    }

    private func install(_ schema: KnownSchema?, reason: String, force: Bool = false) {
        guard force || schema != rewrites.schema else { return }
        rewrites.install(schema, keys: keys)
        if let schema {
            logger.info(
                "origin schema loaded",
                metadata: ["types": .stringConvertible(schema.kinds.count), "source": "\(reason)"])
        }
        changed(schema != nil)
        if schema == nil {
            logger.info("origin schema: none in use", metadata: ["source": "\(reason)"])
        }
    }
}
