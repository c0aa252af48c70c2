// Whether an origin answer may be stored, for how long and under which entity tags (SPEC
// section 5): the cheap header checks first, the body parse last.

extension CachePolicy {
    /// Decides whether `response`, the origin's answer to the query `operationName`, is stored.
    ///
    /// `no-store`, `private` and `Set-Cookie` are honoured even with
    /// `honor_origin_cache_control: false`: that flag governs lifetimes, never privacy. Any
    /// top-level `errors` member, even an empty one, keeps the answer out (SPEC section 5).
    package func storage(of response: HTTPResponse, operationName: String?) -> StorageDecision {
        guard response.status == 200 else { return .doNotStore(.originStatus) }
        guard MediaType.isJSONResponse(response.headers["Content-Type"]) else { return .doNotStore(.notJSON) }
        guard !response.headers.contains("Set-Cookie") else { return .doNotStore(.setCookie) }
        let cacheControl = CacheControl(headerValues: response.headers.values(of: "Cache-Control"))
        if cacheControl.noStore { return .doNotStore(.originNoStore) }
        if cacheControl.isPrivate { return .doNotStore(.originPrivate) }
        guard keyedHeaders.allowsStoring(vary: response.headers.values(of: "Vary")) else {
            return .doNotStore(.originVary)
        }

        // Before the body: an answer that cannot live in the cache is never parsed (a TTL-0
        // operation's misses cost the proxy no JSON parse).
        let ttl = timeToLive(operationName: operationName, cacheControl: cacheControl)
        guard ttl > .zero else { return .doNotStore(.zeroTTL) }

        guard let body = OriginAnswer.jsonObject(response.body) else { return .doNotStore(.notJSON) }
        guard !OriginAnswer.hasErrors(body) else { return .doNotStore(.graphQLErrors) }
        return .store(ttl: ttl, tags: body["data"].map(EntityTags.extract(from:)) ?? [])
    }

    /// The first matching rule's TTL; else the origin's `s-maxage`, then `max-age` (a `no-cache`
    /// meaning 0) when honoured; else `default_ttl`.
    package func timeToLive(operationName: String?, cacheControl: CacheControl) -> Duration {
        if let rule = rule(for: operationName) { return rule.ttl }
        if settings.honorOriginCacheControl {
            // no-cache means "revalidate before every reuse"; with no revalidation here, that is 0.
            if cacheControl.noCache { return .zero }
            if let seconds = cacheControl.sharedMaxAge ?? cacheControl.maxAge { return .seconds(seconds) }
        }
        return settings.defaultTTL
    }
}
