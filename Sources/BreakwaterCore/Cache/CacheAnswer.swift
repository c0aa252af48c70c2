// How each cache outcome is answered (SPEC 5.2): X-Cache, Age, Cache-Control, ETag, 304.

/// The response a client gets for a cache outcome.
package enum CacheAnswer {
    /// An answer from a stored entry: `HIT` when fresh, `STALE` past its TTL.
    package static func fromEntry(
        _ entry: CacheEntry, age: Duration, isFresh: Bool, client: ClientView
    ) -> HTTPResponse {
        var headers = HTTPHeaders(capacity: 8 + client.extraHeaders.fields.count)
        headers.add("X-Cache", isFresh ? XCache.hit.headerValue : XCache.stale.headerValue)
        headers.add("Age", CacheResponseHeaders.age(age))
        headers.add("Cache-Control", cacheControl(for: entry, client: client))
        headers.add("ETag", entry.etag)
        return finish(entry: entry, headers: headers, client: client)
    }

    /// The answer to the request whose fetch stored `entry` (and to those that waited on it).
    package static func stored(_ entry: CacheEntry, client: ClientView) -> HTTPResponse {
        var headers = HTTPHeaders(capacity: 7 + client.extraHeaders.fields.count)
        headers.add("X-Cache", XCache.miss.headerValue)
        headers.add("Cache-Control", cacheControl(for: entry, client: client))
        headers.add("ETag", entry.etag)
        return finish(entry: entry, headers: headers, client: client)
    }

    /// An origin answer that was fetched and not stored, whatever the reason: `BYPASS`.
    package static func bypassed(_ origin: HTTPResponse, client: ClientView) -> HTTPResponse {
        var response = OriginAnswer.relay(origin)
        if response.status == 200 && MediaType.isJSONResponse(origin.headers["Content-Type"]) {
            response.headers.replace("Content-Type", with: client.jsonContentType)
        }
        response.headers.add("X-Cache", XCache.bypass.headerValue)
        // Replaced, not added: a 502 made from an origin's error page has its own already.
        response.headers.replace("Cache-Control", with: "private, no-store")
        if let vary = client.vary, response.status == 200 { response.headers.add("Vary", vary) }
        response.headers.fields += client.extraHeaders.fields
        return response
    }

    private static func cacheControl(for entry: CacheEntry, client: ClientView) -> String {
        CacheResponseHeaders.cacheControl(
            isPublicGET: client.isGET && !entry.isPerUser, ttl: entry.ttl,
            staleWhileRevalidate: entry.staleWhileRevalidate, staleIfError: entry.staleIfError)
    }

    /// 200 with the stored body, or 304 when the client already holds it.
    private static func finish(entry: CacheEntry, headers: HTTPHeaders, client: ClientView) -> HTTPResponse {
        var headers = headers
        if let vary = client.vary { headers.add("Vary", vary) }
        if let tagHeader = entry.tagHeader { headers.add(tagHeader.name, tagHeader.value) }
        if !client.extraHeaders.fields.isEmpty { headers.fields += client.extraHeaders.fields }
        if !client.ifNoneMatch.isEmpty && ConditionalRequest.ifNoneMatchMatches(client.ifNoneMatch, etag: entry.etag) {
            return HTTPResponse(status: 304, headers: headers)
        }
        headers.add("Content-Type", client.wantsGraphQLResponseJSON ? client.jsonContentType : entry.contentType)
        // Given here, so that libevent does not format it on every hit.
        headers.add("Content-Length", entry.contentLength)
        return HTTPResponse(status: 200, headers: headers, body: entry.body)
    }
}
