// Reads config.yaml into a Configuration. The YAML layer only maps keys onto the typed model,
// whose defaults stay in Configuration.swift; every problem in the file is collected and reported
// as `file:line: message`, so an operator fixes them all in one round. What is valid but almost
// certainly not meant comes back as warnings, in the same form. The line of every key is kept
// (ConfigurationSource), so checks made after loading, such as opening the files the
// configuration names, point at a line too.

import Yams

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads and validates Breakwater's YAML configuration.
public enum ConfigurationLoader {
    /// Reads the file at `path`; relative paths inside it are resolved against the file's folder.
    /// `warn` is called with each warning of a file that is otherwise valid.
    public static func load(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (ConfigurationError.Problem) -> Void = { _ in }
    ) throws(ConfigurationError) -> Configuration {
        try read(path: path, environment: environment, warn: warn).configuration
    }

    /// As `load`, with where each key stands in the file.
    public static func read(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (ConfigurationError.Problem) -> Void = { _ in }
    ) throws(ConfigurationError) -> LoadedConfiguration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(problems: [.init(file: path, line: 0, message: "cannot read file")])
        }
        guard let yaml = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(problems: [.init(file: path, line: 0, message: "file is not UTF-8 text")])
        }
        let base = path.lastIndex(of: "/").map { slash in slash == path.startIndex ? "/" : String(path[..<slash]) }
        return try read(yaml: yaml, file: path, baseDirectory: base ?? ".", environment: environment, warn: warn)
    }

    /// Maps `yaml` onto a Configuration; `file` names the source in problems, and relative paths
    /// (`persisted_queries.store`, `manifest`, `server.tls`) are resolved against `baseDirectory`;
    /// `${NAME}` references in values are replaced from `environment`. `warn` is called with each
    /// warning (file order) when the file has no problem.
    public static func parse(
        yaml: String,
        file: String,
        baseDirectory: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (ConfigurationError.Problem) -> Void = { _ in }
    ) throws(ConfigurationError)
        -> Configuration
    {
        try read(yaml: yaml, file: file, baseDirectory: baseDirectory, environment: environment, warn: warn)
            .configuration
    }

    /// As `parse`, with where each key stands in the file.
    public static func read(
        yaml: String,
        file: String,
        baseDirectory: String,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        warn: (ConfigurationError.Problem) -> Void = { _ in }
    ) throws(ConfigurationError)
        -> LoadedConfiguration
    {
        let root: Node?
        do {
            // The reader takes every scalar as text and parses it itself, so no tags are resolved:
            // Yams' default resolver would compile its regular expressions through ICU at start,
            // about 1 MiB of tables and code resident for the life of the process.
            root = try Yams.compose(yaml: yaml, .basic)
        } catch {
            throw ConfigurationError(problems: [problem(from: error, file: file)])
        }
        let reader = ConfigurationReader(
            file: file, baseDirectory: baseDirectory, expansion: EnvironmentExpansion(environment: environment))
        let configuration = reader.configuration(from: root)
        guard reader.problems.isEmpty else {
            // Cross-field checks run last; sorting puts every problem back in file order.
            throw ConfigurationError(
                problems: reader.problems.sorted { $0.line < $1.line }, logFormat: configuration.logging.format)
        }
        reader.warnings.sorted { $0.line < $1.line }.forEach(warn)
        return LoadedConfiguration(
            configuration: configuration, source: ConfigurationSource(file: file, keyLines: reader.keyLines))
    }

    /// Only `admin.listen` of the file at `path` (its default when the file has none): what a
    /// command that only reads the admin endpoints needs (`advise`). No other key is read, so a
    /// secret elsewhere in the file (`admin.token: ${BREAKWATER_ADMIN_TOKEN}`) need not be set.
    package static func adminListen(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> HostPort {
        guard let data = FileManager.default.contents(atPath: path), let yaml = String(data: data, encoding: .utf8)
        else {
            throw ConfigurationError(problems: [.init(file: path, line: 0, message: "cannot read file")])
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: yaml, .basic)
        } catch {
            throw ConfigurationError(problems: [problem(from: error, file: path)])
        }
        guard let node = root?["admin"]?["listen"], !node.isNull else { return Configuration().admin.listen }
        let line = node.mark?.line ?? 0
        let key = ConfigurationKeys.Admin.listen.path
        guard case .scalar(let scalar) = node else {
            throw ConfigurationError(problems: [.init(file: path, line: line, message: "\(key): expected HOST:PORT")])
        }
        switch EnvironmentExpansion(environment: environment).expand(scalar.string) {
        case .failure(let failure):
            throw ConfigurationError(problems: [.init(file: path, line: line, message: "\(key): \(failure)")])
        case .success(let value):
            guard let address = HostPort(parsing: value) else {
                throw ConfigurationError(problems: [
                    .init(file: path, line: line, message: "\(key): \"\(value)\" is not a listen address (HOST:PORT)")
                ])
            }
            return address
        }
    }

    /// Every key the reader asks for while reading `yaml`, by `ConfigurationKey.path`: with every
    /// optional section and each kind of list item present, the keys the loader accepts.
    static func keysAsked(yaml: String) throws -> Set<String> {
        let reader = ConfigurationReader(
            file: "", baseDirectory: "/", expansion: EnvironmentExpansion(environment: [:]))
        _ = reader.configuration(from: try Yams.compose(yaml: yaml, .basic))
        return reader.keysAsked
    }

    /// Turns a Yams syntax error into a problem at its line.
    private static func problem(from error: any Error, file: String) -> ConfigurationError.Problem {
        switch error as? YamlError {
        case let .composer(_, "but found another document", mark, _)?:
            return .init(file: file, line: mark.line, message: "a config file holds one YAML document, found a second")
        case let .scanner(context, problem, mark, yaml)?, let .parser(context, problem, mark, yaml)?,
            let .composer(context, problem, mark, yaml)?:
            let within = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            // libyaml's message for a tab says nothing about tabs, the usual cause.
            let lineText = yaml.split(separator: "\n", omittingEmptySubsequences: false).dropFirst(mark.line - 1).first
            let hint = lineText?.contains("\t") == true ? "; YAML indents with spaces, not tabs" : ""
            return .init(file: file, line: mark.line, message: "invalid YAML: \(problem)\(within)\(hint)")
        case let .reader(problem, offset, _, yaml)?:
            let line = offset.map { yaml.prefix($0).filter { $0 == "\n" }.count + 1 } ?? 1
            return .init(file: file, line: line, message: "invalid YAML: \(problem)")
        case let .duplicatedKeysInMapping(duplicates, context)?:
            let keys = duplicates.map { "\"\($0)\"" }.joined(separator: ", ")
            return .init(file: file, line: context.mark.line, message: "duplicate key \(keys)")
        default:
            return .init(file: file, line: 1, message: "invalid YAML: \(error)")
        }
    }
}

/// Every problem found in a configuration file, in file order.
public struct ConfigurationError: Error, CustomStringConvertible {
    /// One problem at one line of one file.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var file: String
        /// 1-based; 0 when the problem concerns the whole file (it cannot be read).
        public var line: Int
        public var message: String

        public init(file: String, line: Int, message: String) {
            (self.file, self.line, self.message) = (file, line, message)
        }

        /// `file:line: message`, the form compilers use, so editors can jump to it.
        public var description: String { line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)" }
    }

    public var problems: [Problem]
    /// The file's `logging.format` when it could be read (else text): start-up errors are
    /// written in the format the operator's log pipeline expects.
    public var logFormat: Configuration.LogFormat

    public init(problems: [Problem], logFormat: Configuration.LogFormat = .text) {
        self.problems = problems
        self.logFormat = logFormat
    }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

// MARK: - Mapping nodes onto the model

/// A value in the file: its dotted name for messages, the line of its key, and its node.
private struct Field {
    let path: String
    let line: Int
    let node: Node
}

/// The settings of one mapping, asked for by the keys of `Key` (ConfigurationKeys). A key the
/// file has and the reader never asked for is unknown (`reportUnknownKeys`).
private final class Settings<Key: ConfigurationKey> {
    let section: Field
    private let present: [String: Field]
    /// The keys asked for, in the order the reader asked (the "did you mean" candidates).
    private(set) var known: [Key] = []

    init(section: Field, present: [String: Field]) {
        self.section = section
        self.present = present
    }

    subscript(key: Key) -> Field? {
        if !known.contains(key) { known.append(key) }
        return present[key.name]
    }

    /// The file's keys nobody asked for, in file order.
    var unread: [(name: String, field: Field)] {
        present.filter { entry in !known.contains { $0.name == entry.key } }.map { ($0.key, $0.value) }
            .sorted { $0.field.line < $1.field.line }
    }
}

/// Walks the YAML tree once, filling a Configuration and collecting problems instead of stopping.
private final class ConfigurationReader {
    typealias Key = ConfigurationKeys

    let file: String
    let baseDirectory: String
    let expansion: EnvironmentExpansion
    private(set) var problems: [ConfigurationError.Problem] = []
    /// Valid settings that almost certainly do not do what their author meant.
    private(set) var warnings: [ConfigurationError.Problem] = []
    /// The `scope: per-user` lines of `cache.types`, by type name.
    private var perUserTypeLines: [String: Int] = [:]
    /// The line of every key in the file, by dotted name (`logging.access_log`).
    private(set) var keyLines: [String: Int] = [:]
    /// Every key the reader asked for, by its `ConfigurationKey.path` (`cdn.targets[].kind`).
    private(set) var keysAsked: Set<String> = []

    init(file: String, baseDirectory: String, expansion: EnvironmentExpansion) {
        (self.file, self.baseDirectory, self.expansion) = (file, baseDirectory, expansion)
    }

    func configuration(from root: Node?) -> Configuration {
        var configuration = Configuration()
        guard let root, !root.isNull else { return resolvingPaths(configuration) }
        let top = Field(path: "", line: root.line, node: root)
        guard case .mapping = root else {
            report("the top level must be a mapping of sections (server:, origin:, ...), found \(root.kind)", at: top)
            return configuration
        }
        let sections = settings(of: top, Key.Section.self)
        defer { reportUnknownKeys(in: sections) }
        if let section = sections[.server] { configuration.server = server(section) }
        if let section = sections[.origin] { configuration.origin = origin(section) }
        if let section = sections[.persistedQueries] { configuration.persistedQueries = persistedQueries(section) }
        if let section = sections[.cache] { configuration.cache = cache(section) }
        if let section = sections[.admin] { configuration.admin = admin(section) }
        if let section = sections[.redis] { configuration.redis = redis(section) }
        if let section = sections[.cdn] { configuration.cdn = cdn(section) }
        if let section = sections[.tracing] { configuration.tracing = tracing(section) }
        if let section = sections[.logging] { configuration.logging = logging(section) }
        // A cache in front learns an answer's tags only from the tag header: without it a purge
        // by tag reaches nothing there (docs/CDN.md).
        if !configuration.cdn.targets.isEmpty && configuration.cache.tagHeader.isEmpty {
            report(
                "\(Key.CDN.targets.path) needs \(Key.Cache.tagHeader.path) (xkey for Varnish, Surrogate-Key for "
                    + "Fastly, Cache-Tag for Cloudflare): a cache in front can only purge by the tags it was told",
                at: sections[.cdn] ?? top)
        }

        let typesUnseen: String? =
            configuration.origin.schema == .off
            ? "\(Key.Origin.schema.path) is off"
            : configuration.cache.entityTags != .auto ? "\(Key.Cache.entityTags.path) is not auto" : nil
        if let typesUnseen, let (name, line) = perUserTypeLines.min(by: { $0.value < $1.value }) {
            // Without a schema an answer's types are only those the client happened to select by
            // `__typename`; the per-user policy then fails closed, which would otherwise show only
            // as answers that are never cached.
            let others = perUserTypeLines.count > 1 ? " (and \(perUserTypeLines.count - 1) more per-user types)" : ""
            warnings.append(
                .init(
                    file: file, line: line,
                    message: "warning: \(Key.Cache.types.path).\(name) has scope per-user\(others) but \(typesUnseen): "
                        + "the per-user type policy cannot see the types in an answer without a schema, so answers "
                        + "to documents not checked against a schema will not be stored (fail closed); set "
                        + "\(Key.Origin.schema.path) to auto or an SDL file, and \(Key.Cache.entityTags.path) to auto"))
        }

        let admin = configuration.admin.listen
        if admin == configuration.server.listen && admin.port != 0 {
            report(
                "\(Key.Admin.listen.path) must differ from \(Key.Server.listen.path) (\(admin))",
                at: sections[.admin] ?? sections[.server] ?? top
            )
        }
        return resolvingPaths(configuration)
    }

    // MARK: Sections

    private func server(_ section: Field) -> Configuration.Server {
        var server = Configuration.Server()
        let f = settings(of: section, Key.Server.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.listen], into: &server.listen, hostPort)
        read(f[.threads], into: &server.threads) { integer($0, minimum: 0) }
        read(f[.graphqlPath], into: &server.graphqlPath) { string($0, startingWith: "/") }
        let uriRead = read(f[.maxURIBytes], into: &server.maxURIBytes) { size($0, minimum: 1)?.bytes }
        read(f[.maxBodyBytes], into: &server.maxBodyBytes) { size($0, minimum: 1) }
        let headerRead = read(f[.maxHeaderBytes], into: &server.maxHeaderBytes) { size($0, minimum: 1) }
        read(f[.idleTimeout], into: &server.idleTimeout) { duration($0) }
        read(f[.headerTimeout], into: &server.headerTimeout) { duration($0, positive: true) }
        read(f[.bodyTimeout], into: &server.bodyTimeout) { duration($0, positive: true) }
        read(f[.maxConnections], into: &server.maxConnections) { integer($0, minimum: 1) }
        read(f[.maxBatch], into: &server.maxBatch) { integer($0, minimum: 1) }
        read(f[.shutdownDelay], into: &server.shutdownDelay) { duration($0) }
        read(f[.drainTimeout], into: &server.drainTimeout) { duration($0) }
        read(f[.compression], into: &server.compression, boolean)
        read(f[.http2], into: &server.http2, boolean)
        read(f[.http2MaxStreams], into: &server.http2MaxStreams) { integer($0, minimum: 1) }
        if let cors = f[.cors], !cors.node.isNull { server.cors = self.cors(cors) }
        if let tls = f[.tls], !tls.node.isNull { server.tls = self.tls(tls) }

        // The request line is part of the header block, so a header limit at or below the URI
        // limit would turn every long-but-allowed URI into a 431.
        if uriRead && headerRead && server.maxHeaderBytes.bytes <= server.maxURIBytes {
            report(
                "\(Key.Server.maxHeaderBytes.path) (\(server.maxHeaderBytes)) must be greater than "
                    + "\(Key.Server.maxURIBytes.path) (\(server.maxURIBytes))",
                at: f[.maxHeaderBytes] ?? f[.maxURIBytes] ?? section
            )
        }
        return server
    }

    private func cors(_ section: Field) -> Configuration.CORS {
        var cors = Configuration.CORS()
        let earlierProblems = problems.count
        let f = settings(of: section, Key.CORS.self)
        read(f[.allowOrigins], into: &cors.allowOrigins) { strings($0) }
        read(f[.allowHeaders], into: &cors.allowHeaders) { strings($0, headerNames: true) }
        read(f[.maxAge], into: &cors.maxAge) { duration($0) }
        reportUnknownKeys(in: f)
        // A misspelled allow_origins is already reported; "must name an origin" would only repeat it.
        if problems.count == earlierProblems && cors.allowOrigins.isEmpty {
            let message = "\(Key.CORS.allowOrigins.path) must name at least one origin (or \"*\")"
            report(message, at: f[.allowOrigins] ?? section)
        }
        return cors
    }

    private func tls(_ section: Field) -> Configuration.TLS {
        var tls = Configuration.TLS()
        let earlierProblems = problems.count
        let f = settings(of: section, Key.TLS.self)
        read(f[.cert], into: &tls.cert, string)
        read(f[.key], into: &tls.key, string)
        reportUnknownKeys(in: f)
        if problems.count == earlierProblems && (tls.cert.isEmpty || tls.key.isEmpty) {
            report("\(Key.Server.tls.path) needs both \(Key.TLS.cert.name) and \(Key.TLS.key.name)", at: section)
        }
        return tls
    }

    private func origin(_ section: Field) -> Configuration.Origin {
        var origin = Configuration.Origin()
        let f = settings(of: section, Key.Origin.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.url], into: &origin.url, originURL)
        read(f[.timeout], into: &origin.timeout) { duration($0, positive: true) }
        read(f[.maxConnections], into: &origin.maxConnections) { integer($0, minimum: 1) }
        read(f[.method], into: &origin.method) { choice($0) }
        read(f[.maxGetURIBytes], into: &origin.maxGetURIBytes) { size($0) }
        read(f[.forwardHeaders], into: &origin.forwardHeaders) { strings($0, headerNames: true) }
        read(f[.tlsVerify], into: &origin.tlsVerify, boolean)
        read(f[.schema], into: &origin.schema, schemaSource)
        return origin
    }

    /// `auto`, `off`, or the path of an SDL file.
    private func schemaSource(_ field: Field) -> Configuration.SchemaSource? {
        guard let value = text(field, expecting: "auto, off or the path of an SDL file") else { return nil }
        switch value.lowercased() {
        case "auto": return .auto
        case "off", "false", "no": return .off
        case "":
            report("\(field.path) must be auto, off or the path of an SDL file", at: field)
            return nil
        default: return .file(value)
        }
    }

    private func persistedQueries(_ section: Field) -> Configuration.PersistedQueries {
        var registry = Configuration.PersistedQueries()
        let f = settings(of: section, Key.PersistedQueries.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.mode], into: &registry.mode) { choice($0) }
        read(f[.maxEntries], into: &registry.maxEntries) { integer($0, minimum: 1) }
        read(f[.maxBytes], into: &registry.maxBytes) { size($0, minimum: 1) }
        read(f[.maxDocumentBytes], into: &registry.maxDocumentBytes) { size($0, minimum: 1) }
        read(f[.manifest], into: &registry.manifest, string)
        read(f[.store], into: &registry.store, string)
        if registry.mode == .safelist && registry.manifest.isEmpty {
            report(
                "\(Key.PersistedQueries.mode.path) safelist needs a \(Key.PersistedQueries.manifest.name) "
                    + "to list the allowed queries",
                at: f[.mode] ?? section
            )
        }
        return registry
    }

    private func cache(_ section: Field) -> Configuration.Cache {
        var cache = Configuration.Cache()
        let f = settings(of: section, Key.Cache.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.maxBytes], into: &cache.maxBytes) { size($0) }
        read(f[.defaultTTL], into: &cache.defaultTTL) { duration($0) }
        read(f[.honorOriginCacheControl], into: &cache.honorOriginCacheControl, boolean)
        read(f[.staleWhileRevalidate], into: &cache.staleWhileRevalidate) { duration($0) }
        read(f[.staleIfError], into: &cache.staleIfError) { duration($0) }
        read(f[.privateHeaders], into: &cache.privateHeaders) { strings($0, headerNames: true) }
        read(f[.invalidateOnMutation], into: &cache.invalidateOnMutation, boolean)
        read(f[.entityTags], into: &cache.entityTags) { choice($0) }
        read(f[.tagHeader], into: &cache.tagHeader, tagHeader)
        read(f[.downstreamAge], into: &cache.downstreamAge) { choice($0) }
        read(f[.freshness], into: &cache.freshness, freshness)
        read(f[.types], into: &cache.types, types)
        read(f[.rules], into: &cache.rules, rules)
        read(f[.snapshot], into: &cache.snapshot, string)
        return cache
    }

    /// `cache.freshness` (docs/FRESHNESS.md).
    private func freshness(_ section: Field) -> FreshnessSettings? {
        var freshness = FreshnessSettings()
        let f = settings(of: section, Key.Freshness.self)
        defer { reportUnknownKeys(in: f) }
        var valid = read(f[.sample], into: &freshness.share) { number($0, in: 0...1, expecting: "a share from 0 to 1") }
        valid =
            read(f[.maxFetchesPerSecond], into: &freshness.maxFetchesPerSecond) {
                number($0, in: 0...1_000_000, expecting: "a rate of at least 0")
            } && valid
        valid =
            read(f[.target], into: &freshness.target) {
                number($0, in: 0.01...0.9999, expecting: "a share above 0 and below 1 (e.g. 0.99)")
            } && valid
        return valid ? freshness : nil
    }

    /// "" or one of `Configuration.tagHeaders`, spelled as listed there.
    private func tagHeader(_ field: Field) -> String? {
        guard let value = string(field) else { return nil }
        if value.isEmpty { return "" }
        guard let match = Configuration.tagHeaders.first(where: { $0.lowercased() == value.lowercased() }) else {
            let spellings = Configuration.tagHeaders.joined(separator: ", ")
            report("\(field.path): \"\(value)\" is not one of \"\", \(spellings)", at: field)
            return nil
        }
        return match
    }

    /// `Type: { ttl: 5m, scope: per-user, keys: [id] }` for each GraphQL type named.
    private func types(_ field: Field) -> [String: Configuration.TypePolicy]? {
        if field.node.isNull { return [:] }
        guard case let .mapping(mapping) = field.node else {
            let expected = "expected a mapping of type names (User: { scope: per-user })"
            report("\(field.path): \(expected), found \(field.node.kind)", at: field)
            return nil
        }
        var types: [String: Configuration.TypePolicy] = [:]
        var valid = true
        for (key, value) in mapping {
            guard case let .scalar(name) = key, name.string.isIdentifierName else {
                let place = Field(path: field.path, line: key.line, node: key)
                report("\(field.path): \"\(key.string ?? key.kind)\" is not a GraphQL type name", at: place)
                valid = false
                continue
            }
            let entry = Field(path: "\(field.path).\(name.string)", line: key.line, node: value)
            let f = settings(of: entry, Key.TypePolicy.self)
            defer { reportUnknownKeys(in: f) }
            var policy = Configuration.TypePolicy()
            valid = read(f[.ttl], into: &policy.ttl) { duration($0) } && valid
            valid = read(f[.scope], into: &policy.scope) { choice($0) } && valid
            valid = read(f[.keys], into: &policy.keys) { keyFields($0) } && valid
            if policy.scope == .perUser { perUserTypeLines[name.string] = f[.scope]?.line ?? key.line }
            types[name.string] = policy
        }
        return valid ? types : nil
    }

    /// A non-empty list of GraphQL field names.
    private func keyFields(_ field: Field) -> [String]? {
        guard let names = strings(field) else { return nil }
        if names.isEmpty {
            report("\(field.path) must name at least one field", at: field)
            return nil
        }
        if let bad = names.first(where: { !$0.isIdentifierName }) {
            report("\(field.path): \"\(bad)\" is not a GraphQL field name", at: field)
            return nil
        }
        return names
    }

    private func rules(_ field: Field) -> [Configuration.CacheRule]? {
        if field.node.isNull { return [] }
        guard case let .sequence(items) = field.node else {
            report(
                "\(field.path): expected a list of rules (- operation: ..., ttl: ...), found \(field.node.kind)",
                at: field
            )
            return nil
        }
        var rules: [Configuration.CacheRule] = []
        var valid = true
        for (index, item) in items.enumerated() {
            let rule = Field(path: "\(field.path)[\(index)]", line: item.line, node: item)
            guard case .mapping = item else {
                report("\(rule.path): expected a mapping with operation and ttl, found \(item.kind)", at: rule)
                valid = false
                continue
            }
            let f = settings(of: rule, Key.CacheRule.self)
            defer { reportUnknownKeys(in: f) }
            var operation = "", ttl = Duration.zero, scope = Configuration.CacheScope.public
            valid = read(f[.operation], into: &operation, nonEmptyString) && valid
            valid = read(f[.ttl], into: &ttl) { duration($0) } && valid
            valid = read(f[.scope], into: &scope) { choice($0) } && valid
            if f[.operation] == nil || f[.ttl] == nil {
                let missing = [Key.CacheRule.operation, .ttl].filter { f[$0] == nil }.map(\.name)
                report("\(rule.path) needs \(missing.joined(separator: " and "))", at: rule)
                valid = false
            }
            rules.append(.init(operation: operation, ttl: ttl, scope: scope))
        }
        return valid ? rules : nil
    }

    private func admin(_ section: Field) -> Configuration.Admin {
        var admin = Configuration.Admin()
        let f = settings(of: section, Key.Admin.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.listen], into: &admin.listen, hostPort)
        read(f[.token], into: &admin.token, adminToken)
        read(f[.allowedHosts], into: &admin.allowedHosts) { strings($0) }
        read(f[.handoverSocket], into: &admin.handoverSocket, string)
        return admin
    }

    /// "" (no token), or a secret that is neither short nor a placeholder left in a template. The
    /// messages never hold the token: validate's output is pasted into tickets.
    private func adminToken(_ field: Field) -> String? {
        guard let token = string(field) else { return nil }
        if token.isEmpty { return "" }
        let advice = "set a random secret, e.g. the output of `openssl rand -hex 32`"
        if token.contains("${") || token.contains("$(") {
            report(
                "\(field.path) holds an environment reference left unexpanded (\"${...}\" or \"$(...)\" in the "
                    + "value the environment gave): the secret never reached Breakwater", at: field)
            return nil
        }
        let lowered = token.lowercased()
        if let placeholder = Configuration.Admin.placeholderTokens.first(where: { lowered.contains($0) }) {
            report("\(field.path) is a placeholder (it contains \"\(placeholder)\"): \(advice)", at: field)
            return nil
        }
        let minimum = Configuration.Admin.minimumTokenBytes
        if token.utf8.count < minimum {
            report(
                "\(field.path) must be at least \(minimum) bytes (it is \(token.utf8.count)): \(advice)", at: field)
            return nil
        }
        return token
    }

    private func redis(_ section: Field) -> Configuration.Redis {
        var redis = Configuration.Redis()
        let f = settings(of: section, Key.Redis.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.url], into: &redis.url) { field in
            guard let url = self.string(field) else { return nil }
            // RedisEndpoint (Fleet/) is the one parser of the forms; its messages never hold the password.
            do throws(RedisEndpointError) {
                if !url.isEmpty { _ = try RedisEndpoint(parsing: url) }
            } catch {
                self.report("\(field.path): \(error.message)", at: field)
                return nil
            }
            return url
        }
        read(f[.keyPrefix], into: &redis.keyPrefix, string)
        read(f[.timeout], into: &redis.timeout) { duration($0, positive: true) }
        read(f[.l2], into: &redis.l2, boolean)
        read(f[.l2MaxEntryBytes], into: &redis.l2MaxEntryBytes) { size($0) }
        read(f[.purgeLog], into: &redis.purgeLog) { integer($0, minimum: 0) }
        read(f[.signingKey], into: &redis.signingKey) { field in
            guard let key = self.string(field) else { return nil }
            // The message never holds the key: validate's output is pasted into tickets.
            let minimum = Configuration.Redis.minimumSigningKeyBytes
            if !key.isEmpty && key.utf8.count < minimum {
                self.report(
                    "\(field.path) must be at least \(minimum) bytes (it is \(key.utf8.count)); "
                        + "make one with `openssl rand -hex 32`", at: field)
                return nil
            }
            return key
        }
        read(f[.sentinels], into: &redis.sentinels) { field in
            guard let addresses = self.strings(field) else { return nil }
            for address in addresses {
                do throws(RedisEndpointError) {
                    guard case .tcp = try RedisEndpoint(parsing: "redis://" + address).address,
                        !address.contains("@"), !address.contains("/")
                    else { throw RedisEndpointError("is not host:port") }
                } catch {
                    self.report("\(field.path): \"\(address)\" \(error.message)", at: field)
                    return nil
                }
            }
            return addresses
        }
        read(f[.masterName], into: &redis.masterName, string)
        read(f[.sentinelPassword], into: &redis.sentinelPassword, string)
        // A password for sentinels that are not there would be silently unused: an operator who
        // set it believes the sentinels are asked, while `url`'s host is.
        if redis.sentinels.isEmpty && !redis.sentinelPassword.isEmpty {
            report(
                "\(Key.Redis.sentinelPassword.path) needs \(Key.Redis.sentinels.path) (it is sent to the sentinels "
                    + "only; the master's password goes in \(Key.Redis.url.path))",
                at: f[.sentinelPassword] ?? section)
        }
        // A sentinel watches masters by name: one without the other finds nothing.
        if !redis.sentinels.isEmpty && redis.masterName.isEmpty {
            report(
                "\(Key.Redis.masterName.path) is needed with \(Key.Redis.sentinels.path) "
                    + "(the name the sentinels know the master by)",
                at: f[.sentinels] ?? section)
        } else if redis.sentinels.isEmpty && !redis.masterName.isEmpty {
            report(
                "\(Key.Redis.masterName.path) needs \(Key.Redis.sentinels.path) (the sentinels to ask for it)",
                at: f[.masterName] ?? section)
        }
        return redis
    }

    private func cdn(_ section: Field) -> Configuration.CDN {
        var cdn = Configuration.CDN()
        let f = settings(of: section, Key.CDN.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.targets], into: &cdn.targets, cdnTargets)
        read(f[.batchWindow], into: &cdn.batchWindow) { duration($0) }
        read(f[.timeout], into: &cdn.timeout) { duration($0, positive: true) }
        read(f[.retries], into: &cdn.retries) { integer($0, minimum: 0) }
        read(f[.maxQueue], into: &cdn.maxQueue) { integer($0, minimum: 1) }
        return cdn
    }

    /// `- kind: varnish` (`urls`), `fastly` (`service_id`, `token`, `soft`, `api_url`),
    /// `cloudflare` (`zone_id`, `token`, `api_url`) or `http` (`url`, `token`).
    private func cdnTargets(_ field: Field) -> [CDNTarget]? {
        if field.node.isNull { return [] }
        guard case let .sequence(items) = field.node else {
            report("\(field.path): expected a list of targets (- kind: varnish, ...), found \(field.node.kind)", at: field)
            return nil
        }
        var targets: [CDNTarget] = []
        for (index, item) in items.enumerated() {
            let entry = Field(path: "\(field.path)[\(index)]", line: item.line, node: item)
            let f = settings(of: entry, Key.CDNTarget.self)
            defer { reportUnknownKeys(in: f) }
            guard let kindField = f[.kind] else {
                report("\(entry.path) needs kind (varnish, fastly, cloudflare or http)", at: entry)
                continue
            }
            var kind = CDNTarget.Kind.varnish
            guard read(kindField, into: &kind, { choice($0) }) else { continue }
            let target: CDNTarget?
            switch kind {
            case .varnish:
                var urls: [OriginURL] = []
                if let list = required(f, .urls, in: entry), read(list, into: &urls, cdnURLs) {
                    target = urls.isEmpty ? nil : .varnish(urls: urls)
                    if urls.isEmpty { report("\(list.path) must name at least one Varnish URL", at: list) }
                } else {
                    target = nil
                }
            case .fastly:
                let service = required(f, .serviceID, in: entry).flatMap(cdnIdentifier)
                let token = required(f, .token, in: entry).flatMap(cdnToken)
                var soft = false, api = CDNTarget.fastlyAPI
                let valid = read(f[.soft], into: &soft, boolean) && read(f[.apiURL], into: &api, originURL)
                target = service.flatMap { service in
                    token.flatMap { valid ? .fastly(serviceID: service, token: $0, soft: soft, apiURL: api) : nil }
                }
            case .cloudflare:
                let zone = required(f, .zoneID, in: entry).flatMap(cdnIdentifier)
                let token = required(f, .token, in: entry).flatMap(cdnToken)
                var api = CDNTarget.cloudflareAPI
                let valid = read(f[.apiURL], into: &api, originURL)
                target = zone.flatMap { zone in token.flatMap { valid ? .cloudflare(zoneID: zone, token: $0, apiURL: api) : nil } }
            case .http:
                let url = required(f, .url, in: entry).flatMap(originURL)
                var token = ""
                let valid = read(f[.token], into: &token) { tokenField in
                    self.string(tokenField).flatMap { $0.isEmpty ? "" : self.cdnToken($0, at: tokenField) }
                }
                target = url.flatMap { valid ? .http(url: $0, token: token) : nil }
            }
            if let target { targets.append(target) }
        }
        return targets.count == items.count ? targets : nil
    }

    /// The setting `key` of a target, reported when it is missing.
    private func required(_ f: Settings<Key.CDNTarget>, _ key: Key.CDNTarget, in entry: Field) -> Field? {
        guard let field = f[key] else {
            report("\(entry.path) needs \(key.name)", at: entry)
            return nil
        }
        return field
    }

    private func cdnURLs(_ field: Field) -> [OriginURL]? {
        guard let texts = strings(field) else { return nil }
        var urls: [OriginURL] = []
        for text in texts {
            guard let url = OriginURL(parsing: text) else {
                report("\(field.path): \"\(text)\" is not an http:// or https:// URL", at: field)
                return nil
            }
            urls.append(url)
        }
        return urls
    }

    /// A service or zone id: it goes into the API's path, so letters, digits, `-` and `_` only.
    private func cdnIdentifier(_ field: Field) -> String? {
        guard let value = nonEmptyString(field) else { return nil }
        let allowed = { (byte: UInt8) in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "_")
        }
        guard value.utf8.allSatisfy(allowed) else {
            report("\(field.path): \"\(value)\" is not an id (letters, digits, - and _)", at: field)
            return nil
        }
        return value
    }

    /// An API token: set, expanded, and a single header-safe line. Messages never hold it.
    private func cdnToken(_ field: Field) -> String? {
        guard let token = string(field) else { return nil }
        guard !token.isEmpty else {
            report("\(field.path) must be set (e.g. token: \"${CDN_TOKEN}\")", at: field)
            return nil
        }
        return cdnToken(token, at: field)
    }

    private func cdnToken(_ token: String, at field: Field) -> String? {
        if token.contains("${") || token.contains("$(") {
            report("\(field.path) holds an environment reference left unexpanded: the secret never reached Breakwater", at: field)
            return nil
        }
        guard token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            report("\(field.path) must be printable ASCII without spaces (it goes in a header)", at: field)
            return nil
        }
        return token
    }

    /// `tracing` (docs/TRACING.md): an OTLP/HTTP endpoint ("" = none) and a share from 0 to 1.
    private func tracing(_ section: Field) -> Configuration.Tracing {
        var tracing = Configuration.Tracing()
        let f = settings(of: section, Key.Tracing.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.otlpEndpoint], into: &tracing.otlpEndpoint, otlpEndpoint)
        read(f[.sampleRatio], into: &tracing.sampleRatio) {
            number($0, in: 0...1, expecting: "a share from 0 to 1 (e.g. 0.01)")
        }
        return tracing
    }

    /// "" (no export) or an http:// or https:// URL of an OTLP/HTTP traces endpoint.
    private func otlpEndpoint(_ field: Field) -> OriginURL?? {
        if field.node.isNull { return .some(nil) }
        guard let value = text(field, expecting: "an http:// or https:// URL, or \"\"") else { return nil }
        if value.isEmpty { return .some(nil) }
        guard let url = OriginURL(parsing: value) else {
            report(
                "\(field.path): \"\(value)\" is not an http:// or https:// URL "
                    + "(an OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces)",
                at: field)
            return nil
        }
        return .some(url)
    }

    private func logging(_ section: Field) -> Configuration.Logging {
        var logging = Configuration.Logging()
        let f = settings(of: section, Key.Logging.self)
        defer { reportUnknownKeys(in: f) }
        read(f[.level], into: &logging.level) { choice($0) }
        read(f[.format], into: &logging.format) { choice($0) }
        read(f[.accessLog], into: &logging.accessLog, accessLog)
        return logging
    }

    /// stdout, stderr, off (true = stdout, false = off), or a file path.
    private func accessLog(_ field: Field) -> Configuration.AccessLogDestination? {
        if field.node.isNull { return .off }
        guard let value = text(field, expecting: "stdout, stderr, off or a file path") else { return nil }
        switch value.lowercased() {
        case "stdout", "true", "yes", "on": return .stdout
        case "stderr": return .stderr
        case "off", "false", "no", "": return .off
        default: return .file(value)
        }
    }

    /// Resolves file paths against the config file's folder, defaults included, so the server
    /// never depends on the directory it was started from.
    private func resolvingPaths(_ configuration: Configuration) -> Configuration {
        var configuration = configuration
        configuration.persistedQueries.store = resolve(configuration.persistedQueries.store)
        configuration.persistedQueries.manifest = resolve(configuration.persistedQueries.manifest)
        configuration.admin.handoverSocket = resolve(configuration.admin.handoverSocket)
        configuration.cache.snapshot = resolve(configuration.cache.snapshot)
        if case .file(let path) = configuration.origin.schema { configuration.origin.schema = .file(resolve(path)) }
        if case .file(let path) = configuration.logging.accessLog {
            configuration.logging.accessLog = .file(resolve(path))
        }
        if var tls = configuration.server.tls {
            tls.cert = resolve(tls.cert)
            tls.key = resolve(tls.key)
            configuration.server.tls = tls
        }
        return configuration
    }

    private func resolve(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), !baseDirectory.isEmpty else { return path }
        var relative = Substring(path)
        while relative.hasPrefix("./") { relative = relative.dropFirst(2) }
        if relative.isEmpty || relative == "." { return baseDirectory }
        return baseDirectory.hasSuffix("/") ? baseDirectory + relative : baseDirectory + "/" + relative
    }

    // MARK: Structure

    /// The known keys of a mapping; unknown keys are reported with the closest known one.
    /// The settings of `section`, a mapping (null: none), each found by the name it is read by.
    private func settings<Keys>(of section: Field, _ keys: Keys.Type) -> Settings<Keys> {
        if section.node.isNull { return Settings(section: section, present: [:]) }
        guard case let .mapping(mapping) = section.node else {
            report("\(section.path): expected a mapping of settings, found \(section.node.kind)", at: section)
            return Settings(section: section, present: [:])
        }
        var present: [String: Field] = [:]
        for (key, value) in mapping {
            guard case let .scalar(name) = key else {
                report("keys must be plain names, found \(key.kind)", at: Field(path: "", line: key.line, node: key))
                continue
            }
            let path = section.path.isEmpty ? name.string : "\(section.path).\(name.string)"
            present[name.string] = Field(path: path, line: key.line, node: value)
            keyLines[path] = key.line
        }
        return Settings(section: section, present: present)
    }

    /// Every key of `settings` that was never read is unknown: reported with the closest known name.
    private func reportUnknownKeys<Keys>(in settings: Settings<Keys>) {
        keysAsked.formUnion(settings.known.map(\.path))
        let place = settings.section.path.isEmpty ? "" : " in \(settings.section.path)"
        for (name, field) in settings.unread {
            let hint = closest(to: name, among: settings.known.map(\.name)).map { " (did you mean \"\($0)\"?)" } ?? ""
            report("unknown key \"\(name)\"\(place)\(hint)", at: field)
        }
    }

    /// Assigns the converted value when the field is present and valid; false when it is invalid.
    @discardableResult
    private func read<Value>(_ field: Field?, into target: inout Value, _ convert: (Field) -> Value?) -> Bool {
        guard let field else { return true }
        guard let value = convert(field) else { return false }
        target = value
        return true
    }

    private func report(_ message: String, at field: Field) {
        problems.append(.init(file: file, line: field.line, message: message))
    }

    // MARK: Values

    /// The text of a scalar; lists, mappings and empty values are reported.
    private func text(_ field: Field, expecting expected: String) -> String? {
        guard case let .scalar(scalar) = field.node, !field.node.isNull else {
            let found = field.node.isNull ? "nothing" : field.node.kind
            report("\(field.path): expected \(expected), found \(found)", at: field)
            return nil
        }
        switch expansion.expand(scalar.string) {
        case .success(let value): return value
        case .failure(let failure):
            report("\(field.path): \(failure)", at: field)
            return nil
        }
    }

    /// A string; an empty value is the empty string (`token:` means no token).
    private func string(_ field: Field) -> String? {
        field.node.isNull ? "" : text(field, expecting: "a string")
    }

    private func string(_ field: Field, startingWith prefix: String) -> String? {
        guard let value = string(field) else { return nil }
        guard value.hasPrefix(prefix) else {
            report("\(field.path): \"\(value)\" must start with \"\(prefix)\"", at: field)
            return nil
        }
        return value
    }

    private func nonEmptyString(_ field: Field) -> String? {
        guard let value = string(field) else { return nil }
        guard !value.isEmpty else {
            report("\(field.path) must not be empty", at: field)
            return nil
        }
        return value
    }

    /// A list of strings, written as a flow list `[a, b]` or a block list.
    private func strings(_ field: Field, headerNames: Bool = false) -> [String]? {
        if field.node.isNull { return [] }
        guard case let .sequence(items) = field.node else {
            report("\(field.path): expected a list such as [a, b], found \(field.node.kind)", at: field)
            return nil
        }
        var values: [String] = []
        for item in items {
            let element = Field(path: field.path, line: item.line, node: item)
            guard let value = text(element, expecting: "a string in the list") else { continue }
            // A header name is an HTTP token; a space or colon means two names ran together.
            if headerNames && (value.isEmpty || value.contains(where: { $0 == ":" || $0.isWhitespace })) {
                report("\(field.path): \"\(value)\" is not a header name", at: element)
                continue
            }
            values.append(value)
        }
        return values.count == items.count ? values : nil
    }

    private func integer(_ field: Field, minimum: Int) -> Int? {
        guard let value = text(field, expecting: "a whole number") else { return nil }
        let digits = value.hasPrefix("-") ? value.dropFirst() : Substring(value)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(value) else {
            report("\(field.path): \"\(value)\" is not a whole number", at: field)
            return nil
        }
        return atLeast(minimum, number, field, text: value)
    }

    /// A decimal number within `range` (a share, a rate).
    private func number(_ field: Field, in range: ClosedRange<Double>, expecting expected: String) -> Double? {
        guard let value = text(field, expecting: expected) else { return nil }
        guard let number = Double(value), number.isFinite, range.contains(number) else {
            report("\(field.path): \"\(value)\" is not \(expected)", at: field)
            return nil
        }
        return number
    }

    private func size(_ field: Field, minimum: Int = 0) -> ByteSize? {
        guard let value = text(field, expecting: "a size") else { return nil }
        if value.hasPrefix("-") {
            report("\(field.path) must not be negative", at: field)
            return nil
        }
        guard let size = ByteSize(parsing: value) else {
            report("\(field.path): \"\(value)\" is not a size (use a byte count or e.g. 32KiB, 1MiB)", at: field)
            return nil
        }
        return atLeast(minimum, size.bytes, field, text: value).map(ByteSize.init)
    }

    private func atLeast(_ minimum: Int, _ value: Int, _ field: Field, text: String) -> Int? {
        guard value < minimum else { return value }
        report("\(field.path) " + (minimum == 0 ? "must not be negative" : "must be at least \(minimum)"), at: field)
        return nil
    }

    private func duration(_ field: Field, positive: Bool = false) -> Duration? {
        guard let value = text(field, expecting: "a duration") else { return nil }
        if value.hasPrefix("-") {
            report("\(field.path) must not be negative", at: field)
            return nil
        }
        guard let duration = Duration(parsing: value) else {
            report("\(field.path): \"\(value)\" is not a duration (use e.g. 500ms, 30s, 5m, 24h)", at: field)
            return nil
        }
        if positive && duration == .zero {
            report("\(field.path) must be greater than 0s", at: field)
            return nil
        }
        return duration
    }

    private func boolean(_ field: Field) -> Bool? {
        guard let value = text(field, expecting: "true or false") else { return nil }
        switch value.lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        default:
            report("\(field.path): \"\(value)\" is not true or false", at: field)
            return nil
        }
    }

    private func hostPort(_ field: Field) -> HostPort? {
        guard let value = text(field, expecting: "HOST:PORT") else { return nil }
        guard let address = HostPort(parsing: value) else {
            report(
                "\(field.path): \"\(value)\" is not a listen address (HOST:PORT or [IPv6]:PORT)",
                at: field
            )
            return nil
        }
        return address
    }

    private func originURL(_ field: Field) -> OriginURL? {
        guard let value = text(field, expecting: "a URL") else { return nil }
        guard let url = OriginURL(parsing: value) else {
            report("\(field.path): \"\(value)\" is not an http:// or https:// URL", at: field)
            return nil
        }
        return url
    }

    /// One of an enum's spellings, compared case-insensitively ("post" is as clear as "POST").
    private func choice<Choice: RawRepresentable & CaseIterable>(_ field: Field) -> Choice?
    where Choice.RawValue == String {
        let spellings = Choice.allCases.map(\.rawValue)
        guard let value = text(field, expecting: "one of \(spellings.joined(separator: ", "))") else { return nil }
        guard let match = Choice.allCases.first(where: { $0.rawValue.lowercased() == value.lowercased() }) else {
            report("\(field.path): \"\(value)\" is not one of \(spellings.joined(separator: ", "))", at: field)
            return nil
        }
        return match
    }
}

// MARK: - Helpers

extension Node {
    /// `~`, `null` or nothing at all, written without quotes.
    var isNull: Bool {
        guard case let .scalar(scalar) = self, scalar.style == .plain else { return false }
        return ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    fileprivate var line: Int { mark?.line ?? 1 }

    /// What the node is, for "expected X, found Y" messages.
    fileprivate var kind: String {
        switch self {
        case .scalar: isNull ? "nothing" : "a single value"
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }
}

/// The known key within edit distance 2 of `key`, the nearest first, for "did you mean" hints.
private func closest(to key: String, among known: [String]) -> String? {
    let ranked = known.map { (candidate: $0, distance: editDistance(key, $0)) }.filter { $0.distance <= 2 }
    return ranked.min(by: { $0.distance < $1.distance })?.candidate
}

/// Levenshtein distance: insertions, deletions and substitutions each cost one.
private func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    var previous = Array(0...b.count)
    for i in a.indices {
        var current = [i + 1]
        for j in b.indices {
            current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (a[i] == b[j] ? 0 : 1)))
        }
        previous = current
    }
    return previous[b.count]
}
