// What `breakwater validate` must never print (README "Running it in front of your origin"): the admin token, the Redis
// password, the sentinels' password, the Redis signing key and the CDN tokens, shown as `***` so the output can be
// pasted into a ticket.

extension Configuration {
    /// The spelling secrets are replaced with.
    public static let secretMask = "***"

    /// This configuration with `admin.token`, `redis.signing_key`, `redis.sentinel_password`, the
    /// password in `redis.url` and each `cdn.targets` token masked.
    public func maskingSecrets() -> Configuration {
        var masked = self
        if !admin.token.isEmpty { masked.admin.token = Self.secretMask }
        if !redis.signingKey.isEmpty { masked.redis.signingKey = Self.secretMask }
        if !redis.sentinelPassword.isEmpty { masked.redis.sentinelPassword = Self.secretMask }
        masked.redis.url = Self.maskingPassword(in: redis.url)
        masked.cdn.targets = cdn.targets.map(\.maskingToken)
        return masked
    }

    /// `redis://user:secret@host` -> `redis://user:***@host`; `redis://:secret@host` likewise.
    static func maskingPassword(in url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let authorityEnd = url[scheme.upperBound...].firstIndex(of: "/") ?? url.endIndex
        let authority = url[scheme.upperBound..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return url }
        let userInfo = authority[..<at]
        let user = userInfo.firstIndex(of: ":").map { userInfo[..<$0] + ":" } ?? ""
        // A lone user name is a password too for Redis' legacy `AUTH <password>` form.
        return String(url[..<scheme.upperBound]) + user + secretMask + String(url[at...])
    }
}
