// The rules of the client-facing GraphQL endpoint (README, "GraphQL over HTTP rules"), as pure
// steps the request flow calls in order: check (route, method, limits, CORS), parse, resolve the
// document (the APQ table), prepare the operation and its origin request. None of them writes anything: a
// registration is returned to the caller as an effect to perform.

/// An operation ready to be fetched.
///
/// A class of constants: the flow, its fetch plan and the memo each hold it, and every copy of
/// a struct of its fields retained and released each of them.
package final class PreparedOperation: Sendable {
    package let document: ResolvedDocument
    /// The selected operation's name, or the name the client gave.
    package let operationName: String?
    package let kind: OperationKind
    package let variables: JSONValue?
    package let clientMethod: GraphQLRequest.Method
    package let origin: OriginRequest
    /// The origin gets a rewritten document (docs/SCHEMA.md): its answers carry reserved members to strip.
    package let isRewritten: Bool
    /// The document was checked against the origin's schema (rewritten, or complete as sent), so
    /// every object of its answers names its type: the per-type policy sees them all.
    package let showsTypes: Bool

    package init(
        document: ResolvedDocument, operationName: String?, kind: OperationKind, variables: JSONValue?,
        clientMethod: GraphQLRequest.Method, origin: OriginRequest, isRewritten: Bool = false, showsTypes: Bool? = nil
    ) {
        self.document = document
        self.operationName = operationName
        self.kind = kind
        self.variables = variables
        self.clientMethod = clientMethod
        self.origin = origin
        self.isRewritten = isRewritten
        self.showsTypes = showsTypes ?? isRewritten
    }
}

/// Decides what each request to `server.graphql_path` gets, one step at a time.
///
/// A class of constants: the flow calls it through its environment several times per request,
/// and each call on a struct there retained and released every field of a copy.
package final class GraphQLEndpoint: Sendable {
    private let graphqlPath: String
    private let maxURIBytes: Int
    private let maxHeaderBytes: Int
    private let maxBodyBytes: Int
    private let maxDocumentBytes: Int
    private let cors: CORSPolicy?
    private let originPath: String
    private let originPrefersGET: Bool
    private let maxGetTargetBytes: Int
    package let resolver: DocumentResolver
    package let documents: DocumentCache

    package init(configuration: Configuration, resolver: DocumentResolver, documents: DocumentCache) {
        graphqlPath = configuration.server.graphqlPath
        maxURIBytes = configuration.server.maxURIBytes
        maxHeaderBytes = configuration.server.maxHeaderBytes.bytes
        maxBodyBytes = configuration.server.maxBodyBytes.bytes
        maxDocumentBytes = configuration.persistedQueries.maxDocumentBytes.bytes
        cors = configuration.server.cors.map(CORSPolicy.init)
        originPath = configuration.origin.url.path
        originPrefersGET = configuration.origin.method == .get
        maxGetTargetBytes = configuration.origin.maxGetURIBytes.bytes
        self.resolver = resolver
        self.documents = documents
    }

    /// The CORS headers every answer to `request` carries (none without `server.cors`).
    package func corsHeaders(for request: HTTPRequest) -> HTTPHeaders {
        cors?.responseHeaders(origin: request.headers["Origin"]) ?? HTTPHeaders()
    }

    /// The answer a request gets before its parameters are read, or nil when it may go on:
    /// limits, route, method, media type; a preflight's answer (which carries its own CORS headers).
    package func check(_ request: HTTPRequest) -> EarlyAnswer? {
        // The request-target is what CDNs limit; measure it before anything else.
        let targetLength = request.target.utf8.count
        if targetLength > maxURIBytes { return .error(.uriTooLong(length: targetLength, limit: maxURIBytes)) }
        let headerLength = Self.headerLength(of: request)
        if headerLength > maxHeaderBytes {
            return .error(.headersTooLarge(length: headerLength, limit: maxHeaderBytes))
        }
        // A CONNECT target is a host and port (RFC 9112 3.2.3), no path: only the method can be
        // what is refused.
        if case .other("CONNECT") = request.method { return .error(.methodNotAllowed("CONNECT")) }
        guard isGraphQLPath(request.target) else { return .error(.notFound(path: request.path)) }
        switch request.method {
        case .get:
            return nil
        case .post:
            if request.body.count > maxBodyBytes {
                return .error(.bodyTooLarge(length: request.body.count, limit: maxBodyBytes))
            }
            guard MediaType.isJSON(request.headers["Content-Type"]) else {
                return .error(.unsupportedMediaType(request.headers["Content-Type"]))
            }
            return nil
        case .options:
            guard let cors else { return .error(.methodNotAllowed(request.method.token)) }
            return .preflight(cors.preflight(origin: request.headers["Origin"]))
        default:
            return .error(.methodNotAllowed(request.method.token))
        }
    }

    /// An answer decided before any document is resolved.
    package enum EarlyAnswer: Sendable {
        /// An error answer, to be sent with the request's CORS headers.
        case error(GraphQLErrorResponse)
        /// A CORS preflight answer, complete as it is.
        case preflight(HTTPResponse)
    }

    /// The GraphQL parameters of a request that passed `check`.
    package func parse(_ request: HTTPRequest) throws(GraphQLErrorResponse) -> GraphQLRequest {
        try GraphQLRequestParser.parse(request, maxDocumentBytes: maxDocumentBytes)
    }

    /// The request's document per the APQ table, or the hash a fleet tier may still know.
    package func resolve(_ request: GraphQLRequest) throws(GraphQLErrorResponse) -> DocumentResolution {
        try resolver.resolve(request)
    }

    /// Selects and checks the operation `request` runs in `document`, and builds its origin request,
    /// with the document as `rewrites` has it for the origin's schema when given. A query for
    /// whose name (the selected operation's) `rewritesQuery` says false goes as written: its
    /// answer is stored nowhere, so the reserved members would only be added upstream and stripped
    /// again. A mutation is always rewritten: its answer's entities purge what it changed.
    package func prepare(
        _ request: GraphQLRequest, document: ResolvedDocument, rewrites: DocumentRewrites? = nil,
        clientBody: [UInt8]? = nil, rewritesQuery: (_ operationName: String?) -> Bool = { _ in true }
    ) throws(GraphQLErrorResponse) -> PreparedOperation {
        let operation = try select(request, in: document)
        let rewrites =
            operation.kind == .query && rewrites != nil && !rewritesQuery(operation.name ?? request.operationName)
            ? nil : rewrites
        let upstream = rewrites?.upstreamDocument(for: document.digest, text: document.text) ?? .unchecked
        let rewritten: String? = if case .rewritten(let text) = upstream { text } else { nil }
        return PreparedOperation(
            document: document, operationName: operation.name ?? request.operationName, kind: operation.kind,
            variables: request.variables, clientMethod: request.method,
            origin: OriginRequest.make(
                document: rewritten ?? document.text, operationName: request.operationName,
                variables: request.variables, path: originPath, preferGET: originPrefersGET,
                isQuery: operation.kind == .query, maxGetTargetBytes: maxGetTargetBytes,
                clientBody: request.isPlainPOST && rewritten == nil ? clientBody : nil),
            isRewritten: rewritten != nil, showsTypes: upstream.showsTypes)
    }

    /// The operation the request runs; mutations only over POST, no subscriptions.
    private func select(_ request: GraphQLRequest, in document: ResolvedDocument) throws(GraphQLErrorResponse)
        -> OperationAnalysis.Operation
    {
        let operation: OperationAnalysis.Operation
        do {
            operation = try documents.analysis(for: document.digest, document: document.text)
                .select(operationName: request.operationName)
        } catch {
            throw .documentError(error)
        }
        switch operation.kind {
        case .query: break
        case .mutation where request.method == .get: throw .mutationOverGET("mutation")
        case .mutation: break
        case .subscription: throw .subscriptionNotSupported
        }
        return operation
    }

    /// Whether `target`'s path (what precedes any `?`) is `server.graphql_path`, compared as
    /// bytes: `request.path` found the `?` through the UTF-8 view's generic search first.
    private func isGraphQLPath(_ target: String) -> Bool {
        // Read in place: `withUTF8` wanted `var` copies of both strings (a retain and release each).
        target.withUTF8Bytes { target in
            graphqlPath.withUTF8Bytes { path in
                guard target.count >= path.count else { return false }
                for index in 0..<path.count where target[index] != path[index] { return false }
                return target.count == path.count || target[path.count] == UInt8(ascii: "?")
            }
        }
    }

    /// Bytes of the request line and header fields as they came on the wire (HTTP/1.1).
    private static func headerLength(of request: HTTPRequest) -> Int {
        // The fields read in place: `reduce` copied each one (two retains and releases a field).
        request.headers.fields.withUnsafeBufferPointer { fields in
            var length = request.method.token.utf8.count + request.target.utf8.count + 12
            for index in fields.indices { length += fields[index].name.utf8.count + fields[index].value.utf8.count + 4 }
            return length
        }
    }
}
