// How each cache outcome is answered (README "The response cache"): X-Cache, Age, Cache-Control, ETag, 304.

/// The response a client gets for a cache outcome.
package enum ClientAnswer {
    /// An answer from a stored entry: `HIT` when fresh, `STALE` past its TTL (or soft-purged).
    ///
    /// A public GET answer says how old it is in one of two ways (`cache.downstream_age`): `rfc`,
    /// `max-age` = the whole TTL and `Age` (a cache in front subtracts it); `remaining`,
    /// `max-age` = the TTL left and no `Age`. A stale answer carries `max-age=0` either way.
    package static func fromEntry(
        _ entry: CacheEntry, age: Duration, isFresh: Bool, client: ClientView
    ) -> HTTPResponse {
        let cache: XCache = isFresh ? .hit : .stale
        let ageSeconds = client.sendsRemainingTTL ? nil : CacheResponseHeaders.wholeSeconds(age)
        // A fresh answer with the TTL left in max-age has a Cache-Control of its own: listed.
        let formatsCacheControl = isFresh && client.sendsRemainingTTL
        if !formatsCacheControl, let answer = withLines(entry: entry, cache: cache, age: ageSeconds, client: client) {
            return answer
        }
        var headers = HTTPHeaders(capacity: 6 + client.extraHeaders.fields.count)
        headers.add("X-Cache", cache.headerValue)
        if let ageSeconds { headers.add("Age", String.decimal(Int(ageSeconds))) }
        let publicCacheControl =
            if !isFresh {
                entry.staleCacheControl
            } else if formatsCacheControl {
                CacheResponseHeaders.cacheControl(
                    isPublicGET: true, ttl: entry.ttl - age, staleWhileRevalidate: entry.staleWhileRevalidate,
                    staleIfError: entry.staleIfError)
            } else {
                entry.publicCacheControl
            }
        return finish(entry: entry, headers: &headers, client: client, publicCacheControl: publicCacheControl)
    }

    /// The common 200 from the cache with its per-request lines as `CacheAnswerLines` (no header
    /// list, no String to count references of); nil when the answer is another (a 304) or `Vary`
    /// has no stable copy, and the caller lists the fields.
    private static func withLines(entry: CacheEntry, cache: XCache, age: Int64?, client: ClientView) -> HTTPResponse? {
        guard client.ifNoneMatch.isEmpty else { return nil }
        let vary: StableText?
        if let responseVary = client.vary {
            guard let stable = responseVary.stable else { return nil }
            vary = stable
        } else {
            vary = nil
        }
        let (texts, owner) = entry.stableTexts
        let cacheControl =
            !client.isGET || entry.isPerUser
            ? privateCacheControlText : cache == .stale ? texts.staleCacheControl : texts.publicCacheControl
        let lines = CacheAnswerLines(
            cache: cache, age: age, cacheControl: cacheControl, vary: vary,
            contentType: client.wantsGraphQLResponseJSON ? graphQLResponseJSONText : texts.contentType)
        let prebuilt = client.gzip.flatMap { entry.gzipResponse($0) } ?? entry.response
        return HTTPResponse(lines: lines, owner: owner, headers: client.extraHeaders, prebuilt: prebuilt)
    }

    /// The answer to the request whose fetch stored `entry` (and to those that waited on it).
    package static func stored(_ entry: CacheEntry, client: ClientView) -> HTTPResponse {
        if let answer = withLines(entry: entry, cache: .miss, age: nil, client: client) { return answer }
        var headers = HTTPHeaders(capacity: 5 + client.extraHeaders.fields.count)
        headers.add("X-Cache", XCache.miss.headerValue)
        return finish(entry: entry, headers: &headers, client: client, publicCacheControl: entry.publicCacheControl)
    }

    /// An origin answer that was fetched and not stored, whatever the reason: `BYPASS`.
    package static func bypassed(_ origin: HTTPResponse, client: ClientView) -> HTTPResponse {
        if origin.status < 500 {
            // The common case (every uncacheable miss), in one pass: what `relay` makes, then
            // the lines below, with one allocation for the fields.
            let contentType = origin.headers["Content-Type"]
            var headers = HTTPHeaders(capacity: 4 + client.extraHeaders.fields.count)
            headers.add(
                "Content-Type",
                origin.status == 200 && MediaType.isJSONResponse(contentType)
                    ? client.jsonContentType : contentType ?? "application/json")
            headers.add("X-Cache", XCache.bypass.headerValue)
            headers.add("Cache-Control", "private, no-store")
            if let vary = client.vary, origin.status == 200 { headers.add("Vary", vary.text) }
            if !client.extraHeaders.fields.isEmpty { headers.fields += client.extraHeaders.fields }
            return HTTPResponse(status: origin.status, headers: headers, body: origin.body)
        }
        var response = OriginRelay.relay(origin)
        if response.status == 200 && MediaType.isJSONResponse(origin.headers["Content-Type"]) {
            response.headers.replace("Content-Type", with: client.jsonContentType)
        }
        response.headers.add("X-Cache", XCache.bypass.headerValue)
        // Replaced, not added: a 502 made from an origin's error page has its own already.
        response.headers.replace("Cache-Control", with: "private, no-store")
        if let vary = client.vary, response.status == 200 { response.headers.add("Vary", vary.text) }
        response.headers.fields += client.extraHeaders.fields
        return response
    }

    /// 200 with the entry's prebuilt lines and body, or 304 when the client already holds it.
    /// The per-request lines are shared strings (interned Cache-Control, the settings' Vary):
    /// nothing here is formatted but the age. `headers` is the caller's, appended to in place (a
    /// copy would share its buffer, and the first append would copy it into a new one).
    private static func finish(
        entry: CacheEntry, headers: inout HTTPHeaders, client: ClientView, publicCacheControl: String
    ) -> HTTPResponse {
        headers.add("Cache-Control", client.isGET && !entry.isPerUser ? publicCacheControl : privateCacheControl)
        if let vary = client.vary { headers.add("Vary", vary.text) }
        if !client.extraHeaders.fields.isEmpty { headers.fields += client.extraHeaders.fields }
        // The gzip form when the client takes it and the body is worth it (made once per entry).
        let gzipped = client.gzip.flatMap { entry.gzipResponse($0) }
        if !client.ifNoneMatch.isEmpty {
            let etag = gzipped == nil ? entry.etag : CacheEntry.gzipETag(entry.etag)
            if ConditionalRequest.ifNoneMatchMatches(client.ifNoneMatch, etag: etag) {
                headers.add("ETag", etag)
                headers.fields += entry.extraHeaders
                return HTTPResponse(status: 304, headers: headers)
            }
        }
        headers.add("Content-Type", client.wantsGraphQLResponseJSON ? client.jsonContentType : entry.contentType)
        return HTTPResponse(status: 200, headers: headers, prebuilt: gzipped ?? entry.response)
    }

    private static let privateCacheControl = CacheResponseHeaders.cacheControl(isPublicGET: false, ttl: .zero)
    private static let privateCacheControlText = StableText("private, no-store")
    private static let graphQLResponseJSONText = StableText("application/graphql-response+json")
}
