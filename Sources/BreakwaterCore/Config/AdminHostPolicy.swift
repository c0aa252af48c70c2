// Which `Host` values the admin listener answers (README "Watching it: the admin endpoints"): loopback names and addresses,
// and those listed in `admin.allowed_hosts`. A web page that rebinds its own DNS name to 127.0.0.1
// still sends its own name as Host, so it is refused (DNS rebinding).

/// Decides whether a request's `Host` header names this admin listener.
package struct AdminHostPolicy: Sendable, Equatable {
    /// `admin.allowed_hosts`, lower-cased; an entry with a port matches that port only, `*` anything.
    private let allowed: [String]

    package init(allowedHosts: [String]) {
        allowed = allowedHosts.map { $0.lowercased() }
    }

    /// The health probes: they reveal nothing, and load balancers, orchestrators and Consul
    /// checks probe by address, so they answer any `Host`.
    package static let probePaths: Set<Substring> = ["/healthz", "/readyz"]

    /// Whether a request for `path` with `host` may reach the admin endpoints: a probe always,
    /// anything else only with an accepted `Host`.
    package func allows(_ host: String?, path: Substring) -> Bool {
        Self.probePaths.contains(path) || allows(host)
    }

    /// Whether `host` (the Host header as sent, maybe with a port) may reach the admin endpoints.
    package func allows(_ host: String?) -> Bool {
        guard let host = host?.lowercased(), !host.isEmpty else { return false }
        if allowed.contains("*") || allowed.contains(host) { return true }
        let name = Self.hostName(host)
        return Self.isLoopback(name) || allowed.contains(name)
    }

    /// The name without its port and without the brackets of an IPv6 literal.
    private static func hostName(_ host: String) -> String {
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return host }
            return String(host[host.index(after: host.startIndex)..<close])
        }
        if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon { return String(host[..<colon]) }
        return host
    }

    /// `localhost` (and names under it, RFC 6761), 127.0.0.0/8 and ::1.
    private static func isLoopback(_ name: String) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") || name == "::1" || name == "0:0:0:0:0:0:0:1" {
            return true
        }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && UInt8($0) != nil }
    }
}
