// One entry of `cdn.targets` (docs/CDN.md): a cache in front that Breakwater purges whenever it
// purges itself, and where its purge API lives.

/// A CDN or Varnish in front of Breakwater, as configured.
public enum CDNTarget: Sendable, Equatable {
    /// Varnish with varnish-modules' xkey: `PURGE` (and `BAN`) sent to each URL.
    case varnish(urls: [OriginURL])
    /// Fastly's purge API for one service; `soft`: every purge marks content stale instead of evicting it.
    case fastly(serviceID: String, token: String, soft: Bool, apiURL: OriginURL)
    /// Cloudflare's purge API for one zone.
    case cloudflare(zoneID: String, token: String, apiURL: OriginURL)
    /// A JSON webhook of the operator's own; `token` ("" for none) goes as a bearer token.
    case http(url: OriginURL, token: String)

    /// The kinds, spelled as `kind:` takes them.
    public enum Kind: String, Sendable, CaseIterable {
        case varnish, fastly, cloudflare, http
    }

    public static let fastlyAPI = OriginURL(scheme: .https, host: "api.fastly.com", port: 443, path: "/")
    public static let cloudflareAPI = OriginURL(
        scheme: .https, host: "api.cloudflare.com", port: 443, path: "/client/v4")

    public var kind: Kind {
        switch self {
        case .varnish: .varnish
        case .fastly: .fastly
        case .cloudflare: .cloudflare
        case .http: .http
        }
    }

    /// This target with its token shown as `Configuration.secretMask`.
    public var maskingToken: CDNTarget {
        func mask(_ token: String) -> String { token.isEmpty ? "" : Configuration.secretMask }
        switch self {
        case .varnish: return self
        case .fastly(let service, let token, let soft, let api):
            return .fastly(serviceID: service, token: mask(token), soft: soft, apiURL: api)
        case .cloudflare(let zone, let token, let api):
            return .cloudflare(zoneID: zone, token: mask(token), apiURL: api)
        case .http(let url, let token):
            return .http(url: url, token: mask(token))
        }
    }

    /// The names targets go by in `/stats`, `/metrics` and logs: the kind, numbered from the
    /// second of a kind on (`varnish`, `varnish-2`).
    public static func labels(of targets: [CDNTarget]) -> [String] {
        var seen: [Kind: Int] = [:]
        return targets.map { target in
            let count = (seen[target.kind] ?? 0) + 1
            seen[target.kind] = count
            return count == 1 ? target.kind.rawValue : "\(target.kind.rawValue)-\(count)"
        }
    }
}
