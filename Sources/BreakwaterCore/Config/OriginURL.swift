// The origin's address, parsed once from `origin.url`.

/// An `http` or `https` URL of a GraphQL origin.
public struct OriginURL: Sendable, Equatable, CustomStringConvertible {
    public enum Scheme: String, Sendable, Equatable {
        case http, https
        public var defaultPort: Int { self == .http ? 80 : 443 }
    }

    public var scheme: Scheme
    public var host: String
    public var port: Int
    /// Path and query, never empty ("/" at least).
    public var path: String

    public init(scheme: Scheme, host: String, port: Int, path: String) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    /// Parses "http(s)://host[:port][/path]"; nil for anything else.
    public init?(parsing text: String) {
        let scheme: Scheme
        let afterScheme: Substring
        if text.lowercased().hasPrefix("http://") {
            scheme = .http
            afterScheme = text.dropFirst(7)
        } else if text.lowercased().hasPrefix("https://") {
            scheme = .https
            afterScheme = text.dropFirst(8)
        } else {
            return nil
        }
        // A fragment never leaves the client, so it is no part of what is sent upstream.
        let rest = afterScheme.prefix(while: { $0 != "#" })
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = String(rest[authorityEnd...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        if authority.isEmpty || authority.contains("@") { return nil }
        if let hostPort = HostPort(parsing: String(authority)) {
            guard hostPort.port > 0 else { return nil }
            self.init(scheme: scheme, host: hostPort.host, port: hostPort.port, path: path)
        } else {
            var host = authority
            if host.hasPrefix("[") {
                guard host.hasSuffix("]") else { return nil }
                host = host.dropFirst().dropLast()
            } else if host.contains(":") {
                return nil
            }
            guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { return nil }
            self.init(scheme: scheme, host: String(host), port: scheme.defaultPort, path: path)
        }
    }

    /// The value of a `Host` header for this origin.
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return port == scheme.defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    public var description: String { "\(scheme.rawValue)://\(hostHeader)\(path)" }
}
