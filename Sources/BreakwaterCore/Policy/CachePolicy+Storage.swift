// Whether an origin answer may be stored, for how long and under which entity tags (README,
// "The response cache"): the cheap header checks first, the body parse last.

extension CachePolicy {
    /// Decides whether `response`, the origin's answer to the query `operationName`, is stored.
    ///
    /// `no-store`, `private` and `Set-Cookie` are honoured even with
    /// `honor_origin_cache_control: false`: that flag governs lifetimes, never privacy. Any
    /// top-level `errors` member, even an empty one, keeps the answer out, and is the reason given before a TTL of 0.
    /// `stripped` is the answer as `AnswerStripper` read it (a rewritten document's answer): its
    /// facts are used instead of parsing the body again. `isPerUser`: the request was keyed per user.
    /// `cache.types` bounds the TTL, forbids storing (`ttl: 0`), or asks for a per-user entry.
    /// `showsTypes`: the document was checked against the origin's schema, so every object of the
    /// answer names its type; when not, and some type is per-user, a shared entry is refused
    /// (the policy fails closed: a `me { email }` the policy cannot see is never shared).
    package func storage(
        of response: HTTPResponse, operationName: String?, stripped: StrippedAnswer? = nil, isPerUser: Bool = false,
        showsTypes: Bool = true
    ) -> StorageDecision {
        guard response.status == 200 else { return .doNotStore(.originStatus) }
        let fields = StorageFields(response.headers)
        guard MediaType.isJSONResponse(fields.contentType) else { return .doNotStore(.notJSON) }
        guard !fields.setsCookie else { return .doNotStore(.setCookie) }
        let cacheControl = CacheControl(headerValues: fields.cacheControl)
        if cacheControl.noStore { return .doNotStore(.originNoStore) }
        if cacheControl.isPrivate { return .doNotStore(.originPrivate) }
        guard keyedHeaders.allowsStoring(vary: fields.vary) else { return .doNotStore(.originVary) }

        // Before the body: an answer that cannot live in the cache is never parsed (a TTL-0
        // operation's misses cost the proxy no JSON parse), unless a per-user type may be in it:
        // then even an answer stored nowhere must be read, since its coalesced waiters get it
        // only when it may be shared (`AnswerSharing`). Types only ever shorten the TTL.
        var ttl = timeToLive(operationName: operationName, originTTL: cacheControl.lifetime)
        guard ttl > .zero || hasPerUserTypes else {
            // Errors are the reason even at TTL 0; the body is parsed only when it holds the word.
            let hasErrors = stripped?.hasErrors ?? OriginRelay.hasTopLevelErrors(response.body)
            return .doNotStore(hasErrors ? .graphQLErrors : .zeroTTL)
        }

        let tags: [String]
        let types: Set<String>
        if let stripped {
            guard !stripped.hasErrors else { return .doNotStore(.graphQLErrors) }
            (tags, types) = (stripped.tags, stripped.types)
        } else {
            guard let body = OriginRelay.jsonObject(response.body) else { return .doNotStore(.notJSON) }
            guard !OriginRelay.hasErrors(body) else { return .doNotStore(.graphQLErrors) }
            (tags, types) = body["data"].map(EntityTags.summary(of:)) ?? ([], [])
        }

        let verdict = settings.types.isEmpty ? .none : TypePolicyVerdict(types: types, policies: settings.types)
        if verdict.isPerUser && !isPerUser { return .doNotStore(.perUserType) }
        if hasPerUserTypes && !showsTypes && !isPerUser { return .doNotStore(.unverifiedTypes) }
        guard ttl > .zero else { return .doNotStore(.zeroTTL) }
        if let typeTTL = verdict.ttl {
            guard typeTTL > .zero else { return .doNotStore(.typeTTL) }
            ttl = min(ttl, typeTTL)
        }
        return .store(
            ttl: ttl, tags: settings.entityTags == .off ? [] : tags,
            basis: TTLBasis(cacheControl: cacheControl, types: types))
    }

    /// The first matching rule's TTL; else the origin's lifetime (`CacheControl.lifetime`) when
    /// honoured; else `default_ttl`.
    package func timeToLive(operationName: String?, originTTL: Duration?) -> Duration {
        if let rule = rule(for: operationName) { return rule.ttl }
        if settings.honorOriginCacheControl, let originTTL { return originTTL }
        return settings.defaultTTL
    }
}

/// The origin answer's fields that decide storing, read in one walk over its header fields, told
/// apart by length first (four lookups by name walked them four times).
private struct StorageFields {
    /// The first `Content-Type`.
    var contentType: String?
    var setsCookie = false
    var cacheControl: [String] = []
    var vary: [String] = []

    init(_ headers: HTTPHeaders) {
        headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                switch fields[index].name.utf8.count {
                case 4 where fields[index].name.equalsIgnoringASCIICase("Vary"):
                    vary.append(fields[index].value)
                case 10 where fields[index].name.equalsIgnoringASCIICase("Set-Cookie"):
                    setsCookie = true
                case 12 where contentType == nil && fields[index].name.equalsIgnoringASCIICase("Content-Type"):
                    contentType = fields[index].value
                case 13 where fields[index].name.equalsIgnoringASCIICase("Cache-Control"):
                    cacheControl.append(fields[index].value)
                default:
                    break
                }
            }
        }
    }
}
