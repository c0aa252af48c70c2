// The calls each kind of target makes for a batch of purges (docs/CDN.md, one section per kind):
// Varnish's `PURGE` with xkey headers and `BAN`, Fastly's surrogate-key purge and `purge_all`,
// Cloudflare's `purge_cache` within its per-call tag limit, and the generic JSON webhook.

extension CDNTarget {
    /// Tags in one Fastly call: its batch purge takes up to 256 surrogate keys.
    package static let fastlyTagsPerCall = 256
    /// Tags in one Cloudflare call: `purge_cache` takes up to 100 tags per request.
    package static let cloudflareTagsPerCall = 100
    /// Bytes of tags in one header value: Varnish refuses a request header longer than
    /// `http_req_hdr_len` (8 KiB by default), and Fastly's header limit is of the same order.
    package static let tagHeaderBytesPerCall = 4_000

    /// The calls that carry `batch` to this target, hard purges before soft ones.
    package func requests(for batch: CDNBatch) -> [CDNRequest] {
        if let soft = batch.everything { return everythingRequests(soft: soft) }
        return tagRequests(batch.hardTags, soft: false, origin: batch.origin)
            + tagRequests(batch.softTags, soft: true, origin: batch.origin)
    }

    private func everythingRequests(soft: Bool) -> [CDNRequest] {
        switch self {
        case .varnish(let urls):
            // The VCL bans every object on a BAN (docs/CDN.md); xkey has no purge of everything.
            return urls.map {
                CDNRequest(method: "BAN", url: $0, headers: [:], purges: 1, carried: .everything(soft: soft))
            }
        case .fastly(let service, let token, _, let api):
            // purge_all has no soft form.
            return [
                CDNRequest(
                    method: "POST", url: api.appending("/service/\(service)/purge_all"),
                    headers: Self.fastlyHeaders(token: token, soft: false), purges: 1, carried: .everything(soft: soft))
            ]
        case .cloudflare(let zone, let token, let api):
            return [
                CDNRequest(
                    method: "POST", url: api.appending("/zones/\(zone)/purge_cache"),
                    headers: Self.jsonHeaders(token: token), body: Array(#"{"purge_everything":true}"#.utf8), purges: 1,
                    carried: .everything(soft: soft))
            ]
        case .http(let url, let token):
            return [
                CDNRequest(
                    method: "POST", url: url, headers: Self.jsonHeaders(token: token),
                    body: Self.webhookBody(tags: [], soft: soft, all: true), purges: 1,
                    carried: .everything(soft: soft))
            ]
        }
    }

    private func tagRequests(_ tags: [String], soft: Bool, origin: CDNPurge.Origin) -> [CDNRequest] {
        guard !tags.isEmpty else { return [] }
        switch self {
        case .varnish(let urls):
            let name = soft ? "xkey-softpurge" : "xkey-purge"
            return Self.chunks(tags, maxCount: .max, maxBytes: Self.tagHeaderBytesPerCall).flatMap { chunk in
                urls.map { url in
                    CDNRequest(
                        method: "PURGE", url: url, headers: HTTPHeaders([(name, chunk.joined(separator: " "))]),
                        purges: chunk.count, carried: .tags(chunk, soft: soft, origin: origin))
                }
            }
        case .fastly(let service, let token, let alwaysSoft, let api):
            return Self.chunks(tags, maxCount: Self.fastlyTagsPerCall, maxBytes: Self.tagHeaderBytesPerCall).map {
                var headers = Self.fastlyHeaders(token: token, soft: soft || alwaysSoft)
                headers.add("Surrogate-Key", $0.joined(separator: " "))
                return CDNRequest(
                    method: "POST", url: api.appending("/service/\(service)/purge"), headers: headers,
                    purges: $0.count, carried: .tags($0, soft: soft, origin: origin))
            }
        case .cloudflare(let zone, let token, let api):
            // Cloudflare has no soft purge by tag: a soft purge removes the objects.
            return Self.chunks(tags, maxCount: Self.cloudflareTagsPerCall, maxBytes: .max).map {
                var body = Array(#"{"tags":"#.utf8)
                Self.appendList($0, to: &body)
                body.append(UInt8(ascii: "}"))
                return CDNRequest(
                    method: "POST", url: api.appending("/zones/\(zone)/purge_cache"),
                    headers: Self.jsonHeaders(token: token), body: body, purges: $0.count,
                    carried: .tags($0, soft: soft, origin: origin))
            }
        case .http(let url, let token):
            return [
                CDNRequest(
                    method: "POST", url: url, headers: Self.jsonHeaders(token: token),
                    body: Self.webhookBody(tags: tags, soft: soft, all: false), purges: tags.count,
                    carried: .tags(tags, soft: soft, origin: origin))
            ]
        }
    }

    private static func fastlyHeaders(token: String, soft: Bool) -> HTTPHeaders {
        var headers = HTTPHeaders([("Fastly-Key", token), ("Accept", "application/json")])
        if soft { headers.add("Fastly-Soft-Purge", "1") }
        return headers
    }

    private static func jsonHeaders(token: String) -> HTTPHeaders {
        var headers = HTTPHeaders([("Content-Type", "application/json")])
        if !token.isEmpty { headers.add("Authorization", "Bearer " + token) }
        return headers
    }

    /// `{"tags":[...],"soft":bool,"all":bool}`.
    private static func webhookBody(tags: [String], soft: Bool, all: Bool) -> [UInt8] {
        var body = Array(#"{"tags":"#.utf8)
        appendList(tags, to: &body)
        body.append(contentsOf: ",\"soft\":\(soft),\"all\":\(all)}".utf8)
        return body
    }

    private static func appendList(_ tags: [String], to body: inout [UInt8]) {
        body.append(UInt8(ascii: "["))
        for (index, tag) in tags.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONWriter.quotedString(tag, into: &body)
        }
        body.append(UInt8(ascii: "]"))
    }

    /// `tags` in order, cut into runs of at most `maxCount` tags whose space-joined length is
    /// at most `maxBytes` (a longer single tag goes alone).
    package static func chunks(_ tags: [String], maxCount: Int, maxBytes: Int) -> [[String]] {
        var chunks: [[String]] = []
        var current: [String] = []
        var bytes = 0
        for tag in tags {
            let added = (current.isEmpty ? 0 : 1) + tag.utf8.count
            if !current.isEmpty && (current.count == maxCount || bytes + added > maxBytes) {
                chunks.append(current)
                current = []
                bytes = 0
            }
            bytes += (current.isEmpty ? 0 : 1) + tag.utf8.count
            current.append(tag)
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}

extension OriginURL {
    /// This URL with `suffix` added to its path (one slash between them).
    package func appending(_ suffix: String) -> OriginURL {
        var base = path
        while base.hasSuffix("/") { base.removeLast() }
        return OriginURL(scheme: scheme, host: host, port: port, path: base + suffix)
    }
}
