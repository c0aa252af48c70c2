// What of a client's request shapes its answer: method, conditional headers, media type, CORS.

/// The parts of one client request that decide how an answer is dressed.
package struct ClientView: Sendable {
    /// GET answers may be cached by a CDN in front; POST answers never are.
    package var isGET: Bool
    package var ifNoneMatch: [String]
    /// The client listed `application/graphql-response+json` in `Accept`.
    package var wantsGraphQLResponseJSON: Bool
    /// Headers every answer carries (CORS).
    package var extraHeaders: HTTPHeaders
    /// The `Vary` value of answers from the cache: `Accept` and the keyed forwarded headers
    /// (and `Accept-Encoding` when answers may be compressed).
    package var vary: ResponseVary?
    /// Compresses answers from the cache for this client: set when `server.compression` is on
    /// and the client accepts gzip.
    package var gzip: (any BodyCompressing)?
    /// `cache.downstream_age: remaining`: `max-age` is the TTL left and no `Age` is sent.
    package var sendsRemainingTTL = false

    package init(
        isGET: Bool, ifNoneMatch: [String], wantsGraphQLResponseJSON: Bool, extraHeaders: HTTPHeaders,
        vary: ResponseVary? = nil, gzip: (any BodyCompressing)? = nil
    ) {
        self.isGET = isGET
        self.ifNoneMatch = ifNoneMatch
        self.wantsGraphQLResponseJSON = wantsGraphQLResponseJSON
        self.extraHeaders = extraHeaders
        self.vary = vary
        self.gzip = gzip
    }

    /// The view of `request`, whose answers carry `corsHeaders` and, from the cache, `vary`;
    /// `compressor` gzips them when the request accepts gzip (nil: compression is off).
    package init(
        request: HTTPRequest, corsHeaders: HTTPHeaders, vary: ResponseVary?, compressor: (any BodyCompressing)? = nil
    ) {
        // One walk over the fields for the three names, told apart by length first: three
        // `values(of:)` walked them three times and built an array for each name present.
        var ifNoneMatch: [String] = []
        var wantsGraphQLResponseJSON = false
        var acceptEncoding = AcceptEncoding()
        request.headers.fields.withUnsafeBufferPointer { fields in
            for index in fields.indices {
                switch fields[index].name.utf8.count {
                case 6 where !wantsGraphQLResponseJSON && fields[index].name.equalsIgnoringASCIICase("Accept"):
                    wantsGraphQLResponseJSON = fields[index].value.utf8.containsSequence(Self.graphQLResponseJSON)
                case 13 where fields[index].name.equalsIgnoringASCIICase("If-None-Match"):
                    ifNoneMatch.append(fields[index].value)
                case 15 where compressor != nil && fields[index].name.equalsIgnoringASCIICase("Accept-Encoding"):
                    acceptEncoding.read(fields[index].value)
                default:
                    break
                }
            }
        }
        // Assigned here, not through the memberwise `init`: delegating copied the whole view
        // into place and destroyed the original (four retains and four releases).
        isGET = request.method == .get
        self.ifNoneMatch = ifNoneMatch
        self.wantsGraphQLResponseJSON = wantsGraphQLResponseJSON
        extraHeaders = corsHeaders
        self.vary = vary
        gzip = acceptEncoding.acceptsGzip ? compressor : nil
    }

    private static let graphQLResponseJSON = Array("application/graphql-response+json".utf8)

    /// The Content-Type of a successful JSON answer (README "The response cache").
    package var jsonContentType: String {
        wantsGraphQLResponseJSON ? "application/graphql-response+json" : "application/json"
    }
}

extension Collection where Element == UInt8 {
    /// Whether `needle` occurs in this collection (a plain scan: needles here are short).
    package func containsSequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, count >= needle.count else { return needle.isEmpty }
        var start = startIndex
        while let first = self[start...].firstIndex(of: needle[0]) {
            if self[first...].starts(with: needle) { return true }
            start = index(after: first)
        }
        return false
    }
}
