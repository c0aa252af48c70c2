// Where the fleet tier's Redis is and how to log in: the `redis.url` forms of README "Configuration",
// parsed without any I/O so that `validate` and the tests can check them.

/// A parsed `redis.url`: `redis://[[user]:password@]host[:port][/db]` or `unix:///path[?db=N]`.
package struct RedisEndpoint: Sendable, Equatable, CustomStringConvertible {
    package enum Address: Sendable, Equatable {
        case tcp(host: String, port: Int)
        case unix(path: String)
    }

    package var address: Address
    /// Redis 6 ACL user; nil sends the one-argument `AUTH password`.
    package var username: String?
    /// Sent with `AUTH` on every connect; nil sends no `AUTH`.
    package var password: String?
    /// Selected with `SELECT` on every connect when not 0.
    package var database: Int

    package init(address: Address, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.address = address
        self.username = username
        self.password = password
        self.database = database
    }

    /// Parses `url`, or throws a message that names what is wrong (never the password).
    package init(parsing url: String) throws(RedisEndpointError) {
        if url.hasPrefix("unix://") {
            self = try Self.parseUnix(String(url.dropFirst("unix://".count)))
        } else if url.hasPrefix("redis://") {
            self = try Self.parseTCP(String(url.dropFirst("redis://".count)))
        } else if url.hasPrefix("rediss://") {
            throw RedisEndpointError("rediss:// (TLS) is not supported by this build; use redis:// or unix://")
        } else {
            throw RedisEndpointError("must start with redis:// or unix://")
        }
    }

    /// The URL with the password replaced by `***`, for logs and `validate`.
    package var description: String {
        switch address {
        case .unix(let path):
            return "unix://\(path)" + (database == 0 ? "" : "?db=\(database)")
        case .tcp(let host, let port):
            var credentials = ""
            if username != nil || password != nil {
                credentials = (username ?? "") + (password == nil ? "" : ":***") + "@"
            }
            let shownHost = host.contains(":") ? "[\(host)]" : host
            return "redis://\(credentials)\(shownHost):\(port)" + (database == 0 ? "" : "/\(database)")
        }
    }

    private static func parseUnix(_ rest: String) throws(RedisEndpointError) -> RedisEndpoint {
        let (path, query) = split(rest, at: "?")
        guard path.hasPrefix("/"), path.count > 1 else {
            throw RedisEndpointError("unix:// needs an absolute socket path, as in unix:///run/redis/redis.sock")
        }
        var endpoint = RedisEndpoint(address: .unix(path: try decoded(path)))
        for parameter in (query ?? "").split(separator: "&") {
            let (name, value) = split(String(parameter), at: "=")
            switch name {
            case "db": endpoint.database = try database(value ?? "")
            case "password": endpoint.password = try decoded(value ?? "")
            default: throw RedisEndpointError("unknown parameter \"\(name)\" (db and password are known)")
            }
        }
        return endpoint
    }

    private static func parseTCP(_ rest: String) throws(RedisEndpointError) -> RedisEndpoint {
        var (authority, path) = split(rest, at: "/")
        var endpoint = RedisEndpoint(address: .tcp(host: "", port: 6379))
        if let at = authority.lastIndex(of: "@") {
            let userInfo = String(authority[..<at])
            authority = String(authority[authority.index(after: at)...])
            let (user, password) = split(userInfo, at: ":")
            endpoint.username = user.isEmpty ? nil : try decoded(user)
            endpoint.password = try password.map { (text) throws(RedisEndpointError) in try decoded(text) }
        }
        let (host, port) = try hostAndPort(authority)
        endpoint.address = .tcp(host: host, port: port)
        if let path, !path.isEmpty { endpoint.database = try database(path) }
        return endpoint
    }

    private static func hostAndPort(_ authority: String) throws(RedisEndpointError) -> (String, Int) {
        var host = authority
        var portText: String?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw RedisEndpointError("unclosed [ in the host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RedisEndpointError("unexpected text after the host") }
                portText = String(after.dropFirst())
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = String(authority[authority.index(after: colon)...])
        }
        guard !host.isEmpty else { throw RedisEndpointError("the host is missing") }
        guard let portText else { return (host, 6379) }
        guard let port = Int(portText), (1...65535).contains(port), portText.allSatisfy(\.isASCII) else {
            throw RedisEndpointError("the port \"\(portText)\" is not a number from 1 to 65535")
        }
        return (host, port)
    }

    private static func database(_ text: String) throws(RedisEndpointError) -> Int {
        guard let number = Int(text), number >= 0, text.allSatisfy(\.isASCII) else {
            throw RedisEndpointError("the database \"\(text)\" is not a number from 0 up")
        }
        return number
    }

    /// Splits at the first `separator`; the second part is nil when there is none.
    private static func split(_ text: String, at separator: Character) -> (String, String?) {
        guard let index = text.firstIndex(of: separator) else { return (text, nil) }
        return (String(text[..<index]), String(text[text.index(after: index)...]))
    }

    /// Percent-decodes `text` (a password may hold `@`, `:` or `/` written as %40, %3A, %2F).
    private static func decoded(_ text: String) throws(RedisEndpointError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else {
                throw RedisEndpointError("a % escape is not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why a `redis.url` was refused.
package struct RedisEndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
